// index.html's first script (issue 52): a visitor with no session, on a page that ends at the
// sign-in form, is shown index.html's static copy of that form at once (`signed-out` on <html>;
// styles/screens.css), not a blank page while the app's scripts load; the app then takes it over
// (main.tsx). Public pages (the SmartToken ones) and a /login carrying a notice or a single
// sign-on return are left to the app, as a session is. Async, so that it holds back no page's
// first paint: a few hundred bytes, it runs before the stylesheet has arrived, so before that
// paint; were it ever later, the form would appear a moment later, and never to a session.
(function () {
  var token = null;
  try {
    token = window.localStorage.getItem('token');
  } catch (error) {
    token = null; // storage refused: the app finds no session either
  }
  var where = window.location;
  var isPublic = /^\/(patients\/verify|emergency)(\/|$)/.test(where.pathname);
  var plain = where.pathname !== '/login' || (where.search === '' && where.hash === '');
  if (token === null && !isPublic && plain) document.documentElement.classList.add('signed-out');
})();
