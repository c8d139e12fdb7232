/** Full-page navigation behind one object, so tests can watch it (jsdom's location cannot be spied on). */
export const pageLocation = {
  assign(url: string): void {
    window.location.assign(url);
  },
};
