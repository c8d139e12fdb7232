/* global document, window */
// Browser journey of issue 33: thumbnails in the file list and the in-app viewer, on a phone and
// a desktop, against the real BFF (thumbnails and pages rendered by its worker pool).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';
import {
  PNG_1PX,
  adminApi,
  assertAccessible,
  assertFitsWidth,
  assignWard,
  journey,
  makeStaff,
  makeWard,
  newPage,
  openInViewer,
  shot,
  signIn,
  upload,
  uploadText,
  useJourneyServer,
} from './support.mjs';
import { api } from './server.mjs';

useJourneyServer();

/** A text PDF of `pages` pages ("Page 1", ...), written out by hand with a correct xref table. */
function textPdf(pages) {
  const objects = [];
  const add = (body) => objects.push(body) && objects.length;
  const catalog = add(''); // filled in below
  const tree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = [];
  for (let n = 1; n <= pages; n += 1) {
    const text = `BT /F1 64 Tf 120 600 Td (Page ${n}) Tj ET`;
    const content = add(`<< /Length ${text.length} >>\nstream\n${text}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R >>`;
  objects[tree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${pages} >>`;
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** One PNG chunk: its length, kind, data and CRC. */
function chunk(kind, data) {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(kind), data])));
  return Buffer.concat([head, Buffer.from(kind), data, crc]);
}

/** A PNG of width x height pixels of one colour. */
function png(width, height) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.alloc(1 + width * 3, 0x60);
  row[0] = 0; // no filter
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

/** The review's bomb, real: a 1-bit PNG of `side` x `side` pixels of one colour, every row in the
 * file (30000: 900 megapixels in 160 KB). 64 rows compressed once and ended by a full flush
 * (which resets the compressor) make a block that repeats; the zlib stream's checksum is counted
 * over the rows it stands for. */
function pngBomb(side) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // 1-bit greyscale
  const row = Buffer.alloc(1 + Math.ceil(side / 8), 0xff);
  row[0] = 0; // no filter
  const rowsOf = (n) => Buffer.concat(Array.from({ length: n }, () => row));
  const flushed = (data) => deflateRawSync(data, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const blocks = Math.floor(side / 64);
  const rest = side % 64;
  // Adler-32 of the rows: every byte is 0xff but each row's first (0).
  let a = 1;
  let b = 0;
  for (let r = 0; r < side; r += 1) {
    for (let i = 0; i < row.length; i += 1) {
      a = (a + row[i]) % 65521;
      b = (b + a) % 65521;
    }
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  const parts = [Buffer.from([0x78, 0xda]), ...Array(blocks).fill(flushed(rowsOf(64)))];
  if (rest) parts.push(flushed(rowsOf(rest)));
  parts.push(Buffer.from([0x03, 0x00]), adler); // an empty final block, the checksum
  const pixels = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

const PDF = 'a-chart.pdf';
const TEXT = 'b-notes.txt';
const PHOTO = 'c-wound.png';
// 14 megapixels: beyond what the server hands a browser to decode (12), shown reduced.
const LARGE = 'd-xray.png';
// The review's bomb: 900 megapixels in 160 KB, shown as the copy libvips streamed.
const BOMB = 'e-bomb.png';

/** A doctor and a folder with a 3-page PDF, a text and a picture, arranged through the API. */
async function arrange() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-viewer', ['patient-1']);
  const doctor = await makeStaff(admin.token, 'doctor', 'Vera Viewer');
  await assignWard(admin.token, doctor, ward, ['patient-1']);
  await upload(admin.token, ward, 'patient-1', PDF, new Blob([textPdf(3)], { type: 'application/pdf' }));
  await uploadText(admin.token, ward, 'patient-1', TEXT, 'Wound healing well.\n<b>not markup</b>\n');
  await upload(admin.token, ward, 'patient-1', PHOTO, new Blob([PNG_1PX], { type: 'image/png' }));
  await upload(admin.token, ward, 'patient-1', LARGE, new Blob([png(4000, 3500)], { type: 'image/png' }));
  await upload(admin.token, ward, 'patient-1', BOMB, new Blob([pngBomb(30_000)], { type: 'image/png' }));
  return { admin, ward, doctor, folderUrl: `/containers/${ward}/folders/patient-1` };
}

/** How many times the doctor opened a file of the folder in the viewer or a tab (audit). */
async function views(admin, ward, doctor) {
  const { auditLogs } = await api(journey.server.base, 'GET', `/blobs/audit?userId=${doctor.id}&folderName=patient-1&containerName=${ward}`, { token: admin.token });
  return auditLogs.filter((entry) => entry.operation === 'file_view').length;
}

const loaded = (locator) => locator.evaluate((img) => img.complete && img.naturalWidth > 0);

const DEVICES = [
  ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
  ['desktop', { viewport: { width: 1280, height: 800 } }],
];

for (const [device, options] of DEVICES) {
  test(`${device}: thumbnails in the list; a PDF in the viewer, page by page; next file; Esc; the original`, async () => {
    const { admin, ward, doctor, folderUrl } = await arrange();
    const { context, page, problems } = await newPage(options);
    const pageRequests = [];
    page.on('request', (r) => /\/viewer\/[^/]+\/pages\/\d+/.test(new URL(r.url()).pathname) && pageRequests.push(new URL(r.url())));
    await signIn(page, doctor);
    // The list by name, as this journey follows it (a phone lists the newest first unless the
    // reader chose another order, issue 50: the chart would be last, with no next file).
    await page.evaluate((id) => window.localStorage.setItem(`files.sort.${id}`, 'name'), doctor.id);
    await page.goto(folderUrl);
    const files = page.getByRole('list', { name: 'Patient files' });

    // Thumbnails arrive (at once, or by the live event when rendering finishes after the page
    // loaded) once their rows come near the screen (on the phone the list starts below it), in
    // the row's fixed box; the text has its type instead.
    const rowOf = (name) => files.getByRole('listitem').filter({ hasText: name });
    const boxOf = async (name) => {
      const box = await rowOf(name).locator('.file-thumb').boundingBox();
      return [box.width, box.height];
    };
    await files.getByRole('listitem').first().waitFor();
    const empty = await boxOf(PDF);
    await files.scrollIntoViewIfNeeded();
    for (const name of [PDF, PHOTO]) {
      const thumb = rowOf(name).locator('.file-thumb img');
      await thumb.waitFor({ timeout: 30_000 });
      await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await thumb.elementHandle());
      assert.deepEqual(await boxOf(name), [56, 56], `${name}: the thumbnail keeps its box`);
    }
    assert.deepEqual(empty, [56, 56], 'the box is there before its picture');
    assert.equal(await rowOf(TEXT).locator('.file-thumb img').count(), 0);
    await rowOf(TEXT).locator('.file-icon', { hasText: 'TXT' }).waitFor();
    await assertAccessible(page, `${device}: folder page with thumbnails`);
    await assertFitsWidth(page, `${device}: folder page with thumbnails`);
    const before = await views(admin, ward, doctor);

    // The PDF opens in the viewer, at its own URL, its first page rendered for this screen.
    const ahead = page.waitForResponse((r) => /\/pages\/2\?/.test(r.url()) && r.ok(), { timeout: 30_000 });
    const dialog = await openInViewer(page, PDF);
    assert.match(page.url(), /\?view=a-chart\.pdf$/);
    const first = dialog.getByRole('img', { name: 'Page 1 of 3' });
    await first.waitFor();
    await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await first.elementHandle());
    const stage = await dialog.locator('.viewer-page').evaluate((el) => el.clientWidth);
    const asked = Number(pageRequests[0].searchParams.get('width'));
    const dpr = options.deviceScaleFactor ?? 1;
    assert.ok(asked >= stage * dpr, `${device}: page 1 asked at ${asked} px for a ${stage} px wide area at ${dpr}x`);
    // The next page is fetched while the first is read.
    await ahead;
    await assertAccessible(page, `${device}: the viewer`);
    await assertFitsWidth(page, `${device}: the viewer`);
    await shot(page, `viewer-pdf-${device}`);

    // Turning pages: buttons, and jumping to a page; the position is announced.
    const position = dialog.locator('.viewer-page-number');
    await dialog.getByRole('button', { name: 'Next page' }).click();
    await position.filter({ hasText: 'Page 2 of 3' }).waitFor();
    // Fetched ahead: shown from the cache.
    assert.equal(await loaded(dialog.getByRole('img', { name: 'Page 2 of 3' })), true);
    await dialog.getByLabel('Go to page').fill('3');
    await dialog.getByRole('button', { name: 'Go', exact: true }).click();
    await position.filter({ hasText: 'Page 3 of 3' }).waitFor();
    const third = dialog.getByRole('img', { name: 'Page 3 of 3' });
    await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await third.elementHandle());
    assert.equal(await views(admin, ward, doctor), before + 1, 'one opening, one audited view, however many pages');

    // The next file: a swipe on the phone, the arrow key on the desktop; the text as text.
    if (device === 'phone') {
      const area = await dialog.locator('.viewer-stage').boundingBox();
      const y = area.y + area.height / 2;
      const cdp = await context.newCDPSession(page);
      const touch = (type, x) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
      await touch('touchStart', area.x + area.width - 40);
      for (const step of [1, 2, 3, 4]) await touch('touchMove', area.x + area.width - 40 - step * 50);
      await touch('touchEnd');
    } else {
      await page.keyboard.press('ArrowRight');
    }
    const notes = page.getByRole('dialog', { name: TEXT });
    await notes.getByRole('region', { name: `Text of ${TEXT}` }).getByText('<b>not markup</b>').waitFor();
    assert.match(page.url(), /\?view=b-notes\.txt$/);
    // A text zooms by its letters (issue 50), its zoom controls 44 x 44 on the phone too.
    const fontSize = () => notes.getByRole('region', { name: `Text of ${TEXT}` }).evaluate((node) => parseFloat(window.getComputedStyle(node).fontSize));
    const normal = await fontSize();
    const zoomIn = notes.getByRole('button', { name: 'Zoom in' });
    if (device === 'phone') {
      const target = await zoomIn.boundingBox();
      assert.ok(target.width >= 44 && target.height >= 44, `phone: the text's Zoom in is ${target.width} x ${target.height} px`);
    }
    await zoomIn.click();
    assert.ok((await fontSize()) >= normal * 1.4, `${device}: the text's letters did not grow with the zoom`);
    await notes.getByRole('button', { name: 'Fit: normal text size' }).click();
    assert.equal(await fontSize(), normal);

    // Escape closes it (the URL too), and focus goes back to the row of the file shown last.
    await page.keyboard.press('Escape');
    await notes.waitFor({ state: 'hidden' });
    assert.doesNotMatch(page.url(), /view=/);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-file-open')), TEXT);

    // The back button closes it; a reload opens it again.
    await openInViewer(page, PHOTO);
    await page.getByRole('dialog', { name: PHOTO }).getByRole('img', { name: PHOTO }).waitFor();
    await page.goBack();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    // An image beyond what the server hands a browser to decode: the reduced copy it rendered,
    // with a note; the review's bomb too, streamed by libvips. Neither original is ever asked
    // for by the viewer, and neither opens in a tab: Download original saves it.
    const originals = [];
    const onRequest = (r) => /\/(d-xray|e-bomb)\.png\/viewer\/[^/]+\/content/.test(new URL(r.url()).pathname) && originals.push(r.url());
    page.on('request', onRequest);
    const large = await openInViewer(page, LARGE);
    const reduced = large.getByRole('img', { name: LARGE });
    await reduced.waitFor();
    await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await reduced.elementHandle(), { timeout: 30_000 });
    assert.match(await reduced.getAttribute('src'), /\/image\?link=/);
    assert.deepEqual(await reduced.evaluate((img) => [img.naturalWidth, img.naturalHeight]), [2000, 1750]);
    await large.getByText('This image is too large to show at full size here, so a smaller copy is shown.').waitFor();
    assert.equal(await large.getByRole('button', { name: 'Open original' }).count(), 0);
    await assertAccessible(page, `${device}: an image shown reduced`);
    await assertFitsWidth(page, `${device}: an image shown reduced`);
    await shot(page, `viewer-image-reduced-${device}`);
    await large.getByRole('button', { name: `Next file: ${BOMB}` }).click();
    const bomb = page.getByRole('dialog', { name: BOMB });
    const bombCopy = bomb.getByRole('img', { name: BOMB });
    await bombCopy.waitFor();
    await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await bombCopy.elementHandle(), { timeout: 60_000 });
    assert.match(await bombCopy.getAttribute('src'), /\/image\?link=/);
    assert.deepEqual(await bombCopy.evaluate((img) => [img.naturalWidth, img.naturalHeight]), [2000, 2000]);
    await bomb.getByText('This image is too large to show at full size here, so a smaller copy is shown.').waitFor();
    assert.equal(await bomb.getByRole('button', { name: 'Open original' }).count(), 0);
    await assertAccessible(page, `${device}: the image bomb shown reduced`);
    await shot(page, `viewer-image-bomb-${device}`);
    // Download original: a download through the signed link, the server's attachment; no tab.
    const tabs = context.pages().length;
    const [download] = await Promise.all([page.waitForEvent('download'), bomb.getByRole('button', { name: 'Download original' }).click()]);
    assert.equal(download.suggestedFilename(), BOMB);
    assert.match(download.url(), /\/e-bomb\.png\/view\?link=/);
    const head = await (await context.request.get(download.url())).headersArray();
    assert.match(head.find((h) => h.name.toLowerCase() === 'content-disposition').value, /^attachment;/);
    assert.equal(context.pages().length, tabs);
    await page.getByText('Download started').waitFor();
    page.off('request', onRequest);
    assert.deepEqual(originals, []);
    await page.keyboard.press('Escape');
    await bomb.waitFor({ state: 'hidden' });
    await openInViewer(page, PDF);
    await page.reload();
    const reopened = page.getByRole('dialog', { name: PDF });
    await reopened.getByRole('img', { name: 'Page 1 of 3' }).waitFor();

    // "Open original": today's sandboxed tab through a signed link, with today's message.
    const [tab] = await Promise.all([context.waitForEvent('page'), reopened.getByRole('button', { name: 'Open original' }).click()]);
    await tab.waitForURL(/\/a-chart\.pdf\/view\?link=/);
    await page.getByText('File opened in new tab').waitFor();
    const token = await page.evaluate(() => window.localStorage.getItem('token'));
    assert.equal(tab.url().includes(token), false);
    await tab.close();

    assert.deepEqual(problems, []);
    await context.close();
    await admin.logout();
  });
}
