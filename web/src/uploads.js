// Files: uploading them (POST /user_uploads, with progress), and showing the uploads a
// message links: images inline, other files opened on a click. An upload is readable
// only through a short-lived link the API hands out (GET /user_uploads/{path}), so the
// page asks for one when it shows or opens the file; nothing stored is fetched without.
import { api, ApiError, authorization, unauthorized } from './api.js';

const LINK_SECONDS = 45;   // the server's links last 60 s: a margin for the request
const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;
const links = new Map();   // path -> {url, until} | {pending}

/** The path of an upload a link names (`/user_uploads/1/ab…/name.png`), or null. */
export function uploadPath(href) {
  const m = /^(?:https?:\/\/[^/]+)?\/user_uploads\/(\d+\/[0-9a-f]+\/[^?#]+)$/.exec(href || '');
  return m ? m[1] : null;
}

export function isImage(path) {
  return IMAGE.test(path);
}

/** A short-lived link to an upload (the reference's temporary URL). */
export function temporaryUrl(path) {
  const known = links.get(path);
  if (known && known.pending) return known.pending;
  if (known && known.until > Date.now()) return Promise.resolve(known.url);
  const pending = api('GET', `/user_uploads/${path}`).then((data) => {
    links.set(path, { url: data.url, until: Date.now() + LINK_SECONDS * 1000 });
    return data.url;
  }).catch((error) => { links.delete(path); throw error; });
  links.set(path, { pending });
  return pending;
}

/**
 * Uploads a file: resolves to {url, filename}; `onProgress(fraction)` as it goes.
 * (XMLHttpRequest: fetch reports no upload progress.)
 */
export function uploadFile(file, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', file, file.name || 'pasted-image.png');
    const request = new XMLHttpRequest();
    request.open('POST', '/api/v1/user_uploads');
    request.setRequestHeader('Authorization', authorization());
    request.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onload = () => {
      let body = null;
      try { body = JSON.parse(request.responseText); } catch { /* not JSON: the status says */ }
      if (request.status === 200 && body) resolve(body);
      else {
        if (request.status === 401) unauthorized(body);
        reject(new ApiError(request.status, body));
      }
    };
    request.onerror = () => reject(new Error('The connection to the server dropped.'));
    request.send(form);
  });
}

/** The Markdown that links an upload (an image's link shows it inline here). */
export function uploadMarkdown(result) {
  const name = String(result.filename || 'file').replace(/[[\]]/g, '');
  return `[${name}](${result.url})`;
}

/** After a message's HTML is in the page: images it links are shown, uploads open through
 * a fresh link. Runs again harmlessly (each element is done once). */
export function showUploads(root) {
  for (const img of root.querySelectorAll('img[data-upload-src]:not([src])')) {
    const path = uploadPath(img.dataset.uploadSrc);
    if (path) temporaryUrl(path).then((url) => { img.src = url; }).catch(() => { img.alt = `${img.alt || 'image'} (not available)`; });
  }
  for (const link of root.querySelectorAll('a[href*="/user_uploads/"]:not([data-upload])')) {
    const path = uploadPath(link.getAttribute('href'));
    if (!path) continue;
    link.dataset.upload = path;
    if (isImage(path) && !link.querySelector('img') && !link.closest('.upload-preview')) {
      const preview = document.createElement('a');
      preview.className = 'upload-preview';
      preview.href = link.getAttribute('href');
      preview.dataset.upload = path;
      preview.setAttribute('aria-hidden', 'true');
      preview.tabIndex = -1;
      const img = document.createElement('img');
      img.alt = '';
      img.loading = 'lazy';
      preview.append(img);
      // After the paragraph or item that links it (inside the message's own HTML).
      const block = link.closest('p, li');
      (block && root.contains(block) ? block : link).after(preview);
      temporaryUrl(path).then((url) => { img.src = url; }).catch(() => preview.remove());
    }
  }
}

/** A click on an upload's link opens it through a fresh short-lived link. */
export function openUpload(event) {
  const link = event.target.closest && event.target.closest('a[data-upload]');
  if (!link || event.defaultPrevented || event.button > 0) return;
  event.preventDefault();
  const opened = window.open('', '_blank');
  if (opened) opened.opener = null;
  temporaryUrl(link.dataset.upload).then((url) => {
    if (opened) opened.location.href = url; else window.location.assign(url);
  }).catch(() => { if (opened) opened.close(); });
}
