// Sift's search page: the catalog's search as you type, through the server's JSON API.
// Plain DOM, no framework and no build step. Every request supersedes the one before it: the
// earlier one is aborted, and an answer that arrives late anyway is dropped by its number, so
// the rows shown always belong to what the field holds now. Catalog text only ever becomes
// text nodes, never markup.
"use strict";

const pageSize = 20;
const rowWords = 16;
// How long the typing stops before a search counts as finished (`record=1`), in ms.
const finishedAfter = 1200;

const state = {
  catalogs: [],
  catalog: null, // the entry of GET /catalogs being searched
  tokens: [], // {identifier, text, icon}
  scope: 0, // index into catalog.scopes
  sort: "", // "" for relevance, else FIELD:asc or FIELD:desc (the API's sort=)
  near: "", // "" for none, else LAT,LON (the API's near=), in a catalog with a location
  within: "", // "" for any distance, else kilometres (the API's within=)
  box: "", // "" for anywhere, else SOUTH,WEST,NORTH,EAST (the API's within_box=)
  results: [],
  matched: 0,
  suggestions: [],
  activeSuggestion: -1,
  active: -1, // the result row the keyboard is on
  detail: -1, // the result row shown in the detail view
  request: 0, // number of the latest request: answers to earlier ones are stale
  inFlight: null, // AbortController of the latest request
  valuesInFlight: null, // AbortController of the latest search of a category's values
  pastInFlight: null, // AbortController of the latest request for past searches
  recordTimer: 0, // the timer that counts a search once the typing stops
};

// A key or tenant token handed to the page as /#key=…: sent as `Authorization: Bearer` with
// every request, kept for this tab only, and taken out of the address bar at once (a fragment
// never reaches a server, so no log holds it).
const credential = (() => {
  const given = new URLSearchParams(location.hash.slice(1)).get("key");
  if (given) {
    sessionStorage.setItem("sift-key", given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("sift-key") || "";
})();

const $ = (id) => document.getElementById(id);
const field = () => $("q");

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// `value` with the UTF-16 `ranges` the server marked, as text nodes and <mark>s.
function highlighted(value, ranges) {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const [start, end] of ranges || []) {
    if (start > last) fragment.append(value.slice(last, start));
    fragment.append(element("mark", { text: value.slice(start, end) }));
    last = end;
  }
  if (last < value.length) fragment.append(value.slice(last));
  return fragment;
}

function highlightsOf(result, fieldName) {
  return new Map(
    result.highlights.filter((h) => h.field === fieldName).map((h) => [h.value, h.ranges]));
}

// As the app and `sift search` show numbers: grouped by thousands from 10,000 up (so a year
// stays 2010), fractions as stored.
function formatNumber(value) {
  const plain = Number.isInteger(value) ? String(value) : String(Number(value.toFixed(6)));
  if (Math.abs(value) < 10000) return plain;
  const [whole, fraction] = plain.split(".");
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (fraction ? "." + fraction : "");
}

// One field's value for a row or the detail view: marked where it matched. Many values (a
// city's other names) show the matched ones first, the rest counted when `limit` is given or
// when the result left them out.
// A number as its field shows it: a price with its cents ("25.00"), as the app and the command
// line write it.
function formatField(value, schemaField) {
  const decimals = schemaField.decimals;
  return Number.isInteger(decimals) && Math.abs(value) < 1e15
    ? value.toFixed(Math.min(Math.max(decimals, 0), 9)) : formatNumber(value);
}

// A number as people read it: a negative one with a minus sign, not a hyphen.
function signed(text) {
  return text.startsWith("-") ? `\u2212${text.slice(1)}` : text;
}

function fieldValue(result, schemaField, limit) {
  const value = result[schemaField.name];
  if (value === undefined || value === null) return null;
  if (typeof value === "number") return document.createTextNode(formatField(value, schemaField));
  const marks = highlightsOf(result, schemaField.name);
  // An empty string is no value: a row never shows "Texas ·  · TE17".
  const values = (Array.isArray(value) ? value : [value]).filter((v) => v !== "");
  if (values.length === 0) return null;
  const matched = values.filter((v) => marks.has(v));
  const ordered = limit ? matched.concat(values.filter((v) => !marks.has(v))) : values;
  const shown = limit ? ordered.slice(0, Math.max(limit, matched.length)) : ordered;
  const fragment = document.createDocumentFragment();
  shown.forEach((v, index) => {
    if (index > 0) fragment.append(", ");
    fragment.append(highlighted(v, marks.get(v)));
  });
  // A search result holds the values that matched and a few more; `more` counts the rest.
  const left = values.length - shown.length + ((result.more && result.more[schemaField.name]) || 0);
  if (left > 0) {
    fragment.append(element("span", { class: "more-count", text: ` (+${left} more)` }));
  }
  return fragment;
}

// ---------------------------------------------------------------------------- requests

// What is searched for — the text, the scope (unless the first), the tokens, the sort and
// the place — added to `parameters`: the request and the page's address say it the same way.
function searchedFor(parameters) {
  if (field().value) parameters.set("q", field().value);
  if (state.scope > 0) parameters.set("scope", state.catalog.scopes[state.scope]);
  for (const token of state.tokens) parameters.append("token", token.identifier);
  if (state.sort) parameters.set("sort", state.sort);
  if (state.near) {
    parameters.set("near", state.near);
    if (state.within) parameters.set("within", state.within);
  }
  if (state.box) parameters.set("within_box", state.box);
  return parameters;
}

// A distance as the command line writes it: "850 m", "12.3 km", "1235 km".
function formatDistance(kilometres) {
  if (kilometres < 1) return `${Math.round(kilometres * 1000)} m`;
  const tenths = Math.round(kilometres * 10) / 10;
  return tenths >= 100 ? `${formatNumber(Math.round(tenths))} km` : `${tenths} km`;
}

function searchURL(offset) {
  const parameters = searchedFor(new URLSearchParams());
  parameters.set("limit", String(pageSize));
  if (offset > 0) parameters.set("offset", String(offset));
  parameters.set("facets", "1");
  // A row shows a few words of a long text around the match; the detail reads the item whole.
  parameters.set("crop", String(rowWords));
  return `/catalogs/${encodeURIComponent(state.catalog.name)}/search?${parameters}`;
}

async function getJSON(url, signal) {
  const headers = { Accept: "application/json" };
  if (credential) headers.Authorization = `Bearer ${credential}`;
  const response = await fetch(url, { signal, headers });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.error || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

// Searches for what the field, tokens and scope say now; `more` appends the next page.
async function search({ more = false } = {}) {
  if (!state.catalog) return;
  if (state.inFlight) state.inFlight.abort();
  const number = ++state.request;
  const controller = new AbortController();
  state.inFlight = controller;
  rememberInURL();
  const offset = more ? state.results.length : 0;
  document.body.setAttribute("aria-busy", "true");
  try {
    const answer = await getJSON(searchURL(offset), controller.signal);
    if (number !== state.request) return; // a later keystroke owns the page now
    showAnswer(answer, more);
  } catch (error) {
    if (error.name === "AbortError" || number !== state.request) return;
    showError(error.message);
  } finally {
    if (number === state.request) {
      document.body.removeAttribute("aria-busy");
      state.inFlight = null;
    }
  }
}

function rememberInURL() {
  const parameters = new URLSearchParams();
  if (state.catalogs.length > 1 || state.catalog.name !== state.catalogs[0].name) {
    parameters.set("catalog", state.catalog.name);
  }
  const query = searchedFor(parameters).toString();
  history.replaceState(null, "", query ? `/?${query}` : "/");
}

// ---------------------------------------------------------------------------- showing

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
}

function showAnswer(answer, more) {
  $("error").hidden = true;
  state.results = more ? state.results.concat(answer.results) : answer.results;
  state.matched = answer.matched;
  if (!more) {
    // While searching, the first row is the one Enter opens; the whole catalog has none.
    const searching = field().value.trim() !== "" || state.tokens.length > 0 || state.scope > 0;
    state.active = state.results.length > 0 && searching ? 0 : -1;
    state.detail = -1;
  }
  $("indicator").textContent = answer.indicator;
  // The chips as the catalog shows its tokens (one from the address, "country:BR", as "BR").
  if (!more && answer.tokens) {
    let changed = false;
    for (const token of state.tokens) {
      const read = answer.tokens.find((t) => t.identifier === token.identifier);
      if (read && (read.text !== token.text || read.icon !== token.icon)) {
        token.text = read.text;
        token.icon = read.icon;
        changed = true;
      }
    }
    if (changed) showTokens();
  }
  showScopes(answer.facets);
  showRanges(answer.facets);
  showSuggestions(answer.suggestions || []);
  if (!more) {
    suggestCategoryValues(answer.suggestions || [], state.request);
    if (!field().value && state.tokens.length === 0) suggestPastSearches(state.request);
    else recordWhenFinished();
  }
  showDidYouMean(answer.didYouMean);
  showResults();
  showDetail();
}

// Each number field's smallest and largest value among the matches (a slider's ends), beside
// the count: "Intro price 16.99–51.99 · Year introduced 2001–2007".
function showRanges(facets) {
  const line = $("ranges");
  const ranges = (facets && facets.ranges) || [];
  const parts = ranges.map((range) => {
    const schemaField = state.catalog.fields.find((f) => f.name === range.field) || { label: range.field };
    const low = signed(formatField(range.min, schemaField));
    const high = signed(formatField(range.max, schemaField));
    // "1–5", but "−97.1 to −0.46": a dash between negative numbers reads as a minus.
    const between = range.min < 0 || range.max < 0 ? " to " : "–";
    return `${schemaField.label} ${low === high ? low : `${low}${between}${high}`}`;
  });
  line.textContent = parts.join(" · ");
  line.hidden = parts.length === 0;
}

// The scope bar's buttons are made once per catalog and then updated in place, so the one
// with the keyboard focus keeps it while the counts change under it.
function showScopes(facets) {
  const bar = $("scopes");
  const scopes = state.catalog.scopes;
  bar.hidden = scopes.length === 0;
  if (bar.children.length !== scopes.length) {
    bar.replaceChildren(
      ...scopes.map((title, index) => {
        const button = element(
          "button", { type: "button", role: "tab", id: `scope-${index}`, "aria-controls": "results" },
          element("span", { class: "scope-title", text: title }),
          element("span", { class: "count" }));
        button.addEventListener("click", () => selectScope(index, false));
        return button;
      }));
  }
  const counts = new Map((facets ? facets.scopes : []).map((s) => [s.title, s.count]));
  [...bar.children].forEach((button, index) => {
    const selected = index === state.scope;
    button.setAttribute("aria-selected", String(selected));
    button.setAttribute("tabindex", selected ? "0" : "-1");
    if (facets) button.querySelector(".count").textContent = String(counts.get(scopes[index]) ?? "");
  });
}

function selectScope(index, focus) {
  if (index < 0 || index >= state.catalog.scopes.length) return;
  state.scope = index;
  showScopes(null);
  if (focus) $(`scope-${index}`).focus();
  search();
}

// Under the empty field, what people searched for that still finds something, most made first
// (a server run with --record-searches counts them). Taking one searches for it.
async function suggestPastSearches(number) {
  if (state.pastInFlight) state.pastInFlight.abort();
  const controller = new AbortController();
  state.pastInFlight = controller;
  try {
    const url = `/catalogs/${encodeURIComponent(state.catalog.name)}/suggestions?limit=6`;
    const answer = await getJSON(url, controller.signal);
    if (number !== state.request || field().value) return;
    showSuggestions(answer.suggestions.map((past) => ({
      identifier: `search:${past.text}`, text: past.text, search: past.text,
    })));
  } catch {
    // No suggestions: the field stays as it is.
  }
}

// A search is finished once the typing stops for a while: the server counts it then
// (record=1), if it records searches, and never each keystroke on the way.
function recordWhenFinished() {
  clearTimeout(state.recordTimer);
  const url = searchURL(0).replace(/([?&])limit=\d+/, "$1limit=0") + "&record=1";
  state.recordTimer = setTimeout(() => {
    getJSON(url, new AbortController().signal).catch(() => {});
  }, finishedAfter);
}

// A word asking for a token ("#fra") searches the category's values for it — all of them, not
// only those the catalog lists, near spellings when none matches as written — each with how
// many results of the rest of the search hold it: the category list of a catalog with
// thousands of values. The other tokens offered (year:>=2010) stay after them.
async function suggestCategoryValues(offered, number) {
  const category = state.catalog.fields.find((f) => f.kind === "category");
  const typed = field().value.match(/(^|\s)#(\S*)$/);
  if (!category || !typed) return;
  const parameters = searchedFor(new URLSearchParams());
  parameters.delete("q");
  const rest = field().value.slice(0, typed.index).trim();
  if (rest) parameters.set("search", rest);
  parameters.set("q", typed[2]);
  parameters.set("limit", "8");
  const url = `/catalogs/${encodeURIComponent(state.catalog.name)}/facets/${encodeURIComponent(category.name)}?${parameters}`;
  // A later keystroke's request replaces this one.
  if (state.valuesInFlight) state.valuesInFlight.abort();
  const controller = new AbortController();
  state.valuesInFlight = controller;
  try {
    const answer = await getJSON(url, controller.signal);
    if (number !== state.request) return; // a later keystroke owns the list now
    const chosen = new Set(state.tokens.map((t) => t.identifier));
    const values = answer.values
      .map((value) => {
        const listed = offered.find((t) => t.identifier === `category:${value.value}`);
        return { ...(listed || { text: value.value }), identifier: `category:${value.value}`, count: value.count };
      })
      .filter((token) => !chosen.has(token.identifier));
    showSuggestions(values.concat(offered.filter((t) => !t.identifier.startsWith("category:"))));
  } catch {
    // The tokens the search offered stay.
  }
}

function showSuggestions(suggestions) {
  state.suggestions = document.activeElement === field() ? suggestions : [];
  // A word asking for a token ("#fun") has the first suggestion highlighted, for Enter to take,
  // as the terminal app does; one that merely starts a category's name leaves Enter to the rows.
  const explicit = /(^|\s)#\S*$/.test(field().value);
  state.activeSuggestion = explicit && state.suggestions.length > 0 ? 0 : -1;
  const list = $("suggestions");
  list.replaceChildren(
    ...state.suggestions.map((token, index) => {
      const option = element(
        "li",
        {
          role: "option", id: `suggestion-${index}`,
          "aria-selected": String(index === state.activeSuggestion),
        },
        element("span", { class: "token-kind", text: token.search === undefined ? "#" : "⌕" }),
        (token.icon ? token.icon + " " : "") + token.text,
        ...(token.count === undefined ? [] : [element("span", { class: "token-count", text: formatNumber(token.count) })]));
      option.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keep the focus in the field
        takeSuggestion(index);
      });
      return option;
    }));
  list.hidden = state.suggestions.length === 0;
  field().setAttribute("aria-expanded", String(!list.hidden));
  updateActiveDescendant();
}

function moveSuggestion(step) {
  // Through the suggestions and back to the field's own text (-1), round and round.
  const count = state.suggestions.length;
  let next = state.activeSuggestion + step;
  if (next >= count) next = -1;
  if (next < -1) next = count - 1;
  state.activeSuggestion = next;
  [...$("suggestions").children].forEach((option, index) =>
    option.setAttribute("aria-selected", String(index === state.activeSuggestion)));
  updateActiveDescendant();
}

// One option is selected at a time: a highlighted suggestion, else the active row.
function markRows() {
  [...$("results").children].forEach((row, index) =>
    row.setAttribute(
      "aria-selected", String(index === state.active && state.activeSuggestion < 0)));
}

// Takes a suggested token: it goes before the text, and the word typed for it goes away.
function takeSuggestion(index) {
  const token = state.suggestions[index];
  if (!token) return;
  if (token.search !== undefined) {
    field().value = token.search;
    showSuggestions([]);
    field().focus();
    search();
    return;
  }
  state.tokens.push(token);
  field().value = field().value.replace(/\S*$/, "").trimEnd();
  if (field().value) field().value += " ";
  showTokens();
  field().focus();
  search();
}

function removeToken(index) {
  state.tokens.splice(index, 1);
  showTokens();
  field().focus();
  search();
}

function showTokens() {
  $("tokens").replaceChildren(
    ...state.tokens.map((token, index) => {
      const remove = element("button", {
        type: "button", class: "token-remove", "aria-label": `Remove token ${token.text}`, text: "×",
      });
      remove.addEventListener("click", () => removeToken(index));
      return element(
        "li", { class: "token" },
        element("span", { text: (token.icon ? token.icon + " " : "") + token.text }), remove);
    }));
}

function showDidYouMean(word) {
  const line = $("did-you-mean");
  line.hidden = !word;
  if (!word) return;
  const button = element("button", { type: "button", class: "link", text: word });
  button.addEventListener("click", () => {
    field().value = field().value.replace(/\S+\s*$/, word);
    field().focus();
    search();
  });
  line.replaceChildren("Did you mean ", button, "?");
}

function secondaryLine(result) {
  const parts = [];
  for (const schemaField of state.catalog.fields) {
    // A row shows what is searched; the detail shows the fields kept besides, and the
    // coordinates of a catalog with a location (near a place the row says how far).
    if (schemaField.name === state.catalog.titleField || schemaField.stored) continue;
    const location = state.catalog.location;
    if (location && (schemaField.name === location.latitude || schemaField.name === location.longitude)) continue;
    const value = fieldValue(result, schemaField, 2);
    if (!value) continue;
    const part = element("span", { class: "part" });
    if (schemaField.kind === "number") {
      part.append(element("span", { class: "label", text: schemaField.label + " " }));
    }
    part.append(value);
    parts.push(part);
  }
  // Near a place, how far each result is.
  if (typeof result.distance_km === "number") {
    parts.push(element("span", { class: "part distance", text: formatDistance(result.distance_km) }));
  }
  return parts;
}

function showResults() {
  const list = $("results");
  const titleField = state.catalog.titleField;
  list.replaceChildren(
    ...state.results.map((result, index) => {
      const marks = highlightsOf(result, titleField);
      const row = element(
        "li",
        {
          role: "option", id: `result-${index}`, class: "result",
          "aria-selected": String(index === state.active), "data-id": result.id,
        },
        element("span", { class: "title" }, highlighted(result.title, marks.get(result.title))),
        element("span", { class: "secondary" }, ...secondaryLine(result)));
      row.addEventListener("click", () => {
        state.active = index;
        openDetail(index);
      });
      return row;
    }));
  $("more").hidden = state.results.length >= state.matched;
  updateActiveDescendant();
}

function updateActiveDescendant() {
  markRows();
  const input = field();
  let id = "";
  if (state.activeSuggestion >= 0) id = `suggestion-${state.activeSuggestion}`;
  else if (state.active >= 0 && state.active < state.results.length) id = `result-${state.active}`;
  if (id) input.setAttribute("aria-activedescendant", id);
  else input.removeAttribute("aria-activedescendant");
  input.setAttribute("aria-controls", state.activeSuggestion >= 0 ? "suggestions" : "results");
}

function moveActive(step) {
  if (state.results.length === 0) return;
  const next = Math.min(Math.max(state.active + step, 0), state.results.length - 1);
  const rows = $("results").children;
  state.active = next;
  rows[next].scrollIntoView({ block: "nearest" });
  if (state.detail >= 0) openDetail(next, false);
  updateActiveDescendant();
  if (next === state.results.length - 1 && state.results.length < state.matched) {
    search({ more: true });
  }
}

function openDetail(index, focus = true) {
  state.detail = index;
  showDetail();
  if (focus) $("detail-title").focus();
}

function closeDetail() {
  state.detail = -1;
  showDetail();
  field().focus();
}

function showDetail() {
  const panel = $("detail");
  const shown = state.results[state.detail];
  panel.hidden = !shown;
  document.body.classList.toggle("showing-detail", Boolean(shown));
  if (!shown) return;
  // A result that left values out or cut them to a snippet is shown whole once the item is
  // read, marked as found.
  if ((shown.more || shown.cropped) && !shown.whole) readWhole(shown);
  const result = shown.whole || shown;
  const titleMarks = highlightsOf(result, state.catalog.titleField);
  $("detail-title").replaceChildren(highlighted(result.title, titleMarks.get(result.title)));
  const list = $("detail-fields");
  list.replaceChildren();
  for (const schemaField of state.catalog.fields) {
    if (schemaField.name === state.catalog.titleField) continue;
    const value = fieldValue(result, schemaField, 0);
    if (!value) continue;
    list.append(element("dt", { text: schemaField.label }), element("dd", {}, value));
  }
  list.append(element("dt", { text: "Id" }), element("dd", { class: "id", text: result.id }));
}

// The whole item behind a search result that left values out, for the detail view.
async function readWhole(result) {
  if (result.reading) return;
  result.reading = true;
  const url = `/catalogs/${encodeURIComponent(state.catalog.name)}/items/${encodeURIComponent(result.id)}`;
  try {
    const item = await getJSON(url);
    result.whole = { ...item, highlights: result.highlights };
    if (state.results[state.detail] === result) showDetail();
  } catch (error) {
    result.reading = false; // the values the page has stay shown
  }
}

// ---------------------------------------------------------------------------- keyboard

function onFieldKey(event) {
  const suggesting = state.suggestions.length > 0;
  switch (event.key) {
    case "ArrowDown":
    case "ArrowUp": {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      if (suggesting) moveSuggestion(step);
      else moveActive(step);
      break;
    }
    case "Enter":
      event.preventDefault();
      if (suggesting && state.activeSuggestion >= 0) takeSuggestion(state.activeSuggestion);
      else if (state.results.length > 0) openDetail(Math.max(state.active, 0));
      break;
    case "Escape":
      event.preventDefault();
      if (suggesting) showSuggestions([]);
      else if (state.detail >= 0) closeDetail();
      else if (field().value) {
        field().value = "";
        search();
      } else if (state.tokens.length > 0) {
        state.tokens = [];
        showTokens();
        search();
      }
      break;
    case "Backspace":
      if (field().selectionStart === 0 && field().selectionEnd === 0 && state.tokens.length > 0) {
        event.preventDefault();
        removeToken(state.tokens.length - 1);
      }
      break;
  }
}

function onScopeKey(event) {
  const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const last = state.catalog.scopes.length - 1;
  const step = moves[event.key];
  const next = Number.isFinite(step) ? (state.scope + step + last + 1) % (last + 1) : step < 0 ? 0 : last;
  selectScope(next, true);
}

function onDocumentKey(event) {
  if (event.key === "/" && document.activeElement !== field()) {
    event.preventDefault();
    field().focus();
  } else if (event.key === "Escape" && state.detail >= 0 && document.activeElement !== field()) {
    closeDetail();
  }
}

// ---------------------------------------------------------------------------- start

// The sort menu: relevance, then each field the catalog sorts by, both ways — the title as
// A–Z and Z–A, numbers lowest and highest first.
function showSortMenu(catalog) {
  const menu = $("sort");
  const sortable = catalog.sortable || [];
  const label = (name) => (catalog.fields.find((f) => f.name === name) || { label: name }).label;
  const options = [element("option", { value: "", text: "Relevance" })];
  for (const name of sortable) {
    const title = name === catalog.titleField;
    options.push(
      element("option", { value: `${name}:asc`, text: `${label(name)} ${title ? "A–Z" : "lowest first"}` }),
      element("option", { value: `${name}:desc`, text: `${label(name)} ${title ? "Z–A" : "highest first"}` }));
  }
  // Distance needs a place to measure from.
  if (catalog.location && state.near) {
    options.push(element("option", { value: "distance:asc", text: "Nearest first" }));
  }
  menu.replaceChildren(...options);
  if (![...menu.options].some((o) => o.value === state.sort)) state.sort = "";
  menu.value = state.sort;
  $("sort-picker").hidden = sortable.length === 0;
}

// The place the search is near, as typed ("39.8, -89.6"): the API reads it, and says what is
// wrong with it.
function setNear(near, within) {
  state.near = near.trim().replace(/\s+/g, "");
  state.within = within.trim();
  $("near").value = near;
  $("within").value = within;
  showSortMenu(state.catalog);
}

// The area results are kept inside ("" for anywhere), and the line that says so.
function setArea(box) {
  state.box = box;
  $("area").hidden = !box;
  $("area-text").textContent = box ? `In the area ${box.split(",").join(", ")}` : "";
}

// The area the results shown cover: their extent, its edges rounded outwards to 4 decimals
// (about 10 m), so that every one of them stays inside; "" when none has a place.
function resultsArea() {
  const { latitude, longitude } = state.catalog.location;
  const places = state.results
    .map((result) => [result[latitude], result[longitude]])
    .filter(([lat, lon]) => typeof lat === "number" && typeof lon === "number");
  if (places.length === 0) return "";
  const down = (x) => Math.floor(x * 1e4) / 1e4;
  const up = (x) => Math.ceil(x * 1e4) / 1e4;
  const lats = places.map(([lat]) => lat);
  const lons = places.map(([, lon]) => lon);
  return [down(Math.min(...lats)), down(Math.min(...lons)), up(Math.max(...lats)), up(Math.max(...lons))]
    .map((edge) => String(Math.max(-180, Math.min(180, edge)))).join(",");
}

function useCatalog(catalog) {
  state.catalog = catalog;
  state.tokens = [];
  state.scope = 0;
  state.sort = "";
  state.near = "";
  state.within = "";
  $("near").value = "";
  $("within").value = "";
  setArea("");
  $("near-picker").hidden = !catalog.location;
  showSortMenu(catalog);
  state.results = [];
  $("q-label").textContent = `Search ${catalog.title}`;
  field().placeholder = `Search ${catalog.items.toLocaleString()} ${catalog.title.toLowerCase()}`;
  document.title = `${catalog.title} · Sift`;
  $("catalog").value = catalog.name;
  $("scopes").replaceChildren();
  showTokens();
}

async function start() {
  const { catalogs } = await getJSON("/catalogs");
  state.catalogs = catalogs;
  if (catalogs.length === 0) return showError("This server has no catalogs.");
  const picker = $("catalog");
  picker.replaceChildren(
    ...catalogs.map((c) => element("option", {
      value: c.name, text: c.title.toLowerCase() === c.name ? c.title : `${c.title} (${c.name})`,
    })));
  $("catalog-picker").hidden = catalogs.length < 2;

  const asked = new URLSearchParams(location.search);
  const named = asked.get("catalog");
  const catalog = catalogs.find((c) => c.name === named) || catalogs[0];
  useCatalog(catalog);
  if (named && catalog.name !== named) showError(`No catalog named “${named}”; showing ${catalog.title}.`);
  field().value = asked.get("q") || "";
  const scope = (asked.get("scope") || "").toLowerCase();
  state.scope = Math.max(0, catalog.scopes.findIndex((s) => s.toLowerCase() === scope));
  if (catalog.location) {
    setNear(asked.get("near") || "", asked.get("within") || "");
    setArea((asked.get("within_box") || "").replace(/\s+/g, ""));
  }
  const sort = (asked.get("sort") || "").toLowerCase();
  const offered = [...$("sort").options].map((o) => o.value);
  const asKnown = offered.find((v) => v.toLowerCase() === sort || v.toLowerCase() === `${sort}:asc`);
  state.sort = asKnown || "";
  $("sort").value = state.sort;
  state.tokens = asked.getAll("token").map((identifier) => ({
    identifier, text: identifier.replace(/^category:/, ""),
  }));
  showTokens();

  field().addEventListener("input", () => search());
  field().addEventListener("focus", () => {
    if (!field().value && state.tokens.length === 0) suggestPastSearches(state.request);
  });
  field().addEventListener("keydown", onFieldKey);
  field().addEventListener("blur", () => setTimeout(() => {
    if (document.activeElement !== field()) showSuggestions([]);
  }, 0));
  $("search-form").addEventListener("submit", (event) => event.preventDefault());
  $("scopes").addEventListener("keydown", onScopeKey);
  $("detail-close").addEventListener("click", closeDetail);
  $("more").addEventListener("click", () => search({ more: true }));
  $("sort").addEventListener("change", () => {
    state.sort = $("sort").value;
    search();
  });
  for (const id of ["near", "within"]) {
    $(id).addEventListener("change", () => {
      setNear($("near").value, $("within").value);
      search();
    });
  }
  $("this-area").addEventListener("click", () => {
    const area = resultsArea();
    if (!area) return showError("No result shown has a place to take an area from.");
    setArea(area);
    search();
  });
  $("area-clear").addEventListener("click", () => {
    setArea("");
    search();
  });
  $("near-me").addEventListener("click", () => {
    if (!navigator.geolocation) return showError("This browser cannot tell where it is.");
    navigator.geolocation.getCurrentPosition(
      (position) => {
        const { latitude, longitude } = position.coords;
        setNear(`${latitude.toFixed(4)},${longitude.toFixed(4)}`, $("within").value);
        search();
      },
      (error) => showError(`Your location could not be read: ${error.message}`));
  });
  picker.addEventListener("change", () => {
    useCatalog(catalogs.find((c) => c.name === picker.value));
    field().value = "";
    field().focus();
    search();
  });
  document.addEventListener("keydown", onDocumentKey);
  $("detail-title").setAttribute("tabindex", "-1");
  field().focus();
  await search();
}

start().catch((error) => {
  // A private server, or a key it no longer takes: say how to give the page one.
  const how = error.status === 401
    ? ` Open this page as ${location.origin}/#key=YOUR_KEY with a search key or a tenant token (sift keys create, sift keys token).`
    : "";
  showError(`The catalogs could not be read: ${error.message}.${how}`);
});
