/**
 * Which chunk a module that several screens share goes in (vite.config.ts). Left to itself, the
 * bundler makes a chunk of every set of screens that share modules: a doctor's first load of a
 * folder page fetched 18 small chunks, a round trip each on a phone's connection. Here a shared
 * module goes in 'public' when a page outside the signed-in layout (login, the SmartToken pages)
 * uses it, in 'app' when only signed-in screens do. Left to the bundler (null): modules outside
 * src/, the entry's own modules, each screen itself, and a module that would bring a library the
 * entry does not have (the QR code generator) into every signed-in page, or a module only one
 * screen uses (counting a screen that contains another as that one).
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
  if (screens.some((screen) => PUBLIC_SCREEN.test(screen))) return 'public';
  // A screen that contains another (the admin's folder page shows the folder page) shares
  // nothing through it: what only the two use stays with the inner screen's chunk.
  const outer = (screen: string) =>
    screens.some((other) => other !== screen && closure(screen, (m) => info(m)?.importedIds ?? []).has(other));
  return screens.filter((screen) => !outer(screen)).length > 1 ? 'app' : null;
}

interface BuiltChunk {
  type: 'chunk';
  name: string;
  fileName: string;
  facadeModuleId: string | null;
  imports: string[];
}

/**
 * Fails the build when the grouping goes wrong: a public page that loads signed-in code, or a
 * folder page whose first load needs more than FOLDER_CHUNKS chunks besides the entry's own.
 */
export const FOLDER_CHUNKS = 8;

export function checkChunks() {
  return {
    name: 'check-chunks',
    generateBundle(this: { error: (message: string) => never }, _options: unknown, bundle: Record<string, BuiltChunk | { type: 'asset' }>) {
      const chunks = Object.values(bundle).filter((item): item is BuiltChunk => item.type === 'chunk');
      const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const loads = (chunk: BuiltChunk) => closure(chunk.fileName, (file) => byFile.get(file)?.imports ?? []);
      const screen = (pattern: RegExp) => chunks.filter((chunk) => chunk.facadeModuleId && pattern.test(chunk.facadeModuleId));
      const entry = chunks.find((chunk) => chunk.facadeModuleId?.endsWith('index.html'));
      const initial = entry ? loads(entry) : new Set<string>();
      for (const page of screen(PUBLIC_SCREEN)) {
        const signedIn = [...loads(page)].filter((file) => byFile.get(file)?.name === 'app');
        if (signedIn.length > 0) this.error(`${page.fileName}, a public page, loads signed-in code: ${signedIn.join(', ')}`);
      }
      const [layout] = screen(/[\\/]app[\\/]layout[\\/]AppLayout\.tsx$/);
      const [folder] = screen(/[\\/]features[\\/]files[\\/]routes[\\/]FolderPage\.tsx$/);
      if (!layout || !folder) this.error('the build has no AppLayout or FolderPage chunk');
      const first = new Set([...loads(layout), ...loads(folder)].filter((file) => !initial.has(file)));
      if (first.size > FOLDER_CHUNKS) {
        this.error(`a folder page's first load needs ${first.size} chunks besides the entry's: ${[...first].join(', ')}`);
      }
    },
  };
}
