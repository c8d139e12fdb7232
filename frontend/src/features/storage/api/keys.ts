/** Query keys of the admin storage screens; they sit under the 'containers' and 'folders' roots. */
export const storageKeys = {
  containerPage: (q: string, page: number) => ['containers', 'page', q, page] as const,
  folderPage: (container: string, q: string, page: number) => ['folders', container, 'page', q, page] as const,
};
