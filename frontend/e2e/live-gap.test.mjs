// A folder page whose live connection cannot be made for a while (its instance is dying or its
// database is down: issue 31 point 8) shows what changed meanwhile as soon as the connection is
// made, without a reload: the first connection after failed attempts refetches what is on
// screen, as every reconnection does (the reconnection after an instance dies is
// cluster.test.mjs). Events sent while no connection is up are lost by design (the server keeps
// none). Playwright's routeWebSocket stands between the page and the real BFF and answers the
// page's namespace connection with the refusal an instance sends while its database is down,
// until the journey lets it through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN, adminApi, makeWard, newPage, signIn, uploadText, useJourneyServer } from './support.mjs';

useJourneyServer();

test('files uploaded before the live connection could be made appear once it is', async () => {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-gap', ['patient-1']);
  await uploadText(admin.token, ward, 'patient-1', 'before.txt', 'on screen from the start\n');
  const { context, page, problems } = await newPage();
  let refused = 0;
  let letThrough = false;
  // The server's answer to the page's namespace connection becomes a refusal until letThrough.
  await context.routeWebSocket(/\/socket\.io\//, (page) => {
    const server = page.connectToServer();
    page.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      if (!letThrough && typeof message === 'string' && message.startsWith('40')) {
        refused += 1;
        page.send('44{"message":"Please try again."}');
      } else page.send(message);
    });
  });
  await signIn(page, ADMIN);
  await page.goto(`/containers/${ward}/folders/patient-1`);
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByText('before.txt', { exact: true }).waitFor();
  await page.getByRole('banner').getByText('Live updates off').waitFor();

  // Uploaded (through the API, another person) while the page has no live connection: its
  // event reaches nobody here.
  await uploadText(admin.token, ward, 'patient-1', 'missed.txt', 'sent while the page was not listening\n');
  letThrough = true;
  // After a refusal the web app asks validate-token, then tries again with its backoff.
  await page.getByRole('banner').getByText('Live updates on').waitFor({ timeout: 30_000 });
  await files.getByText('missed.txt', { exact: true }).waitFor();
  assert.ok(refused >= 1);
  assert.deepEqual(
    problems.filter((p) => !/WebSocket|socket\.io|ERR_/.test(p)),
    [],
  );
  await admin.logout();
  await context.close();
});
