/**
 * Which chunk a module that several screens share goes in (vite.config.ts). Left to itself, the
 * bundler makes a chunk of every set of screens that share modules: a doctor's first load of a
 * folder page fetched 18 small chunks, a round trip each on a phone's connection. Here a shared
 * module goes in 'public' when a page outside the signed-in layout (login, the SmartToken pages)
 * uses it, in 'app' when only signed-in screens do. Left to the bundler (null): modules outside
 * src/, the entry's own modules, each screen itself, and a module that would bring a library the
 * entry does not have (the QR code generator) into every signed-in page.
 */

/** What the bundler tells of a module (Rolldown's ChunkingContext.getModuleInfo). */
export interface ModuleGraph {
  getModuleInfo(id: string): {
    isEntry: boolean;
    importers: readonly string[];
    importedIds: readonly string[];
    dynamicImporters: readonly string[];
  } | null;
}

const SOURCE = /[\\/]frontend[\\/]src[\\/]/;
const LIBRARY = /[\\/]node_modules[\\/]/;
/** Screens outside the signed-in layout. */
const PUBLIC_SCREEN = /[\\/]src[\\/]features[\\/](auth|emergency)[\\/]routes[\\/]/;

/** Every module reachable from `id` by following `next`, `id` included. */
function closure(id: string, next: (id: string) => readonly string[]): Set<string> {
  const seen = new Set<string>([id]);
  const stack = [id];
  while (stack.length > 0) {
    for (const other of next(stack.pop() as string)) {
      if (!seen.has(other)) {
        seen.add(other);
        stack.push(other);
      }
    }
  }
  return seen;
}

export function chunkGroup(id: string, graph: ModuleGraph): 'public' | 'app' | null {
  const info = (module: string) => graph.getModuleInfo(module);
  const self = info(id);
  if (!self || !SOURCE.test(id) || self.isEntry || self.dynamicImporters.length > 0) return null;
  const importers = closure(id, (module) => info(module)?.importers ?? []);
  if ([...importers].some((module) => info(module)?.isEntry)) return null;
  const inEntry = (module: string) => [...closure(module, (m) => info(m)?.importers ?? [])].some((m) => info(m)?.isEntry);
  const imports = closure(id, (module) => info(module)?.importedIds ?? []);
  if ([...imports].some((module) => LIBRARY.test(module) && !inEntry(module))) return null;
  const screens = [...importers].filter((module) => (info(module)?.dynamicImporters.length ?? 0) > 0);
  return screens.some((screen) => PUBLIC_SCREEN.test(screen)) ? 'public' : 'app';
}
