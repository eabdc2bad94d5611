/* lecturekit: check an exercise or a recall blank in the page, without a kernel.
 *
 * Each .lk-answer holds its spec (lecturekit_publish.answers) in a JSON script: the salted
 * hashes of the accepted answers, never the answers. An answer is put in the canonical form of
 * lecturekit.exercises.core.canonical (recall: recall.key), hashed as core.form_hash hashes
 * (SHA-256 of "SALT|id|kind|part|form", first 20 hex digits) and compared. Hints and messages
 * are stored XOR a SHA-256 key stream (answers.encode) and decoded when asked for.
 */
(function () {
  "use strict";
  var SALT = "lecturekit/exercises/v1";

  /* ---------------------------------------------------------------- SHA-256 (FIPS 180-4) */
  var K = [];
  (function () {
    var n = 2, found = 0;
    function frac(x) { return ((x - Math.floor(x)) * 4294967296) >>> 0; }
    while (found < 64) {
      var prime = true;
      for (var f = 2; f * f <= n; f++) if (n % f === 0) { prime = false; break; }
      if (prime) { K.push(frac(Math.pow(n, 1 / 3))); found++; }
      n++;
    }
  })();
  function utf8(text) { return new TextEncoder().encode(text); }
  function sha256(bytes) {
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var len = bytes.length, total = ((len + 9 + 63) >> 6) << 6;
    var m = new Uint8Array(total);
    m.set(bytes); m[len] = 0x80;
    var bits = len * 8;
    m[total - 4] = (bits >>> 24) & 255; m[total - 3] = (bits >>> 16) & 255;
    m[total - 2] = (bits >>> 8) & 255; m[total - 1] = bits & 255;
    m[total - 5] = Math.floor(len / 536870912) & 255;  /* bits above 2^32 */
    var w = new Array(64);
    for (var off = 0; off < total; off += 64) {
      for (var i = 0; i < 16; i++)
        w[i] = (m[off + 4 * i] << 24) | (m[off + 4 * i + 1] << 16) |
               (m[off + 4 * i + 2] << 8) | m[off + 4 * i + 3];
      for (i = 16; i < 64; i++) {
        var a15 = w[i - 15], a2 = w[i - 2];
        var s0 = ((a15 >>> 7) | (a15 << 25)) ^ ((a15 >>> 18) | (a15 << 14)) ^ (a15 >>> 3);
        var s1 = ((a2 >>> 17) | (a2 << 15)) ^ ((a2 >>> 19) | (a2 << 13)) ^ (a2 >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
      for (i = 0; i < 64; i++) {
        var S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        var t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
        var S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        var t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + hh) | 0;
    }
    var out = new Uint8Array(32);
    for (i = 0; i < 8; i++) {
      out[4 * i] = (h[i] >>> 24) & 255; out[4 * i + 1] = (h[i] >>> 16) & 255;
      out[4 * i + 2] = (h[i] >>> 8) & 255; out[4 * i + 3] = h[i] & 255;
    }
    return out;
  }
  function hex(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return s;
  }
  function formHash(id, kind, part, form) {
    return hex(sha256(utf8(SALT + "|" + id + "|" + kind + "|" + part + "|" + form))).slice(0, 20);
  }
  function decode(blob, id, what) {
    var raw = atob(blob), data = new Uint8Array(raw.length), stream = [];
    for (var block = 0; stream.length < raw.length; block++)
      stream = stream.concat(Array.from(sha256(utf8(SALT + "|page|" + id + "|" + what + "|" + block))));
    for (var i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i) ^ stream[i];
    return new TextDecoder().decode(data);
  }

  /* --------------------------------------------- canonical forms (core.canonical's rules) */
  function NotYet(message) { this.message = message; }
  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
  function number(text) {
    var t = String(text).trim();
    if (!NUMBER.test(t)) throw new NotYet("expected a number, got " + JSON.stringify(t));
    return Number(t);
  }
  function rounded(value, p) {  /* core._round: p decimals, no "-0.00" */
    var text = value.toFixed(p);
    return text.charAt(0) === "-" && Number(text) === 0 ? text.slice(1) : text;
  }
  function floatForms(value, p) {  /* core._float_forms: the answer and +-(just under) half a unit */
    var half = 0.5 * Number("1e-" + p) * (1 - 1e-9), forms = [];
    [0, -half, half].forEach(function (d) {
      var f = rounded(value + d, p);
      if (forms.indexOf(f) < 0) forms.push(f);
    });
    return forms;
  }
  function text(value) {  /* core._text */
    var t = value.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
    t = t.replace(/^[ ."'`]+/, "").replace(/[ ."'`]+$/, "");
    if (!t) throw new NotYet("the answer is an empty string");
    return t;
  }
  function items(raw) {  /* a list typed in the box: "1, 2", "[1, 2]", "(a b)" */
    var t = raw.trim().replace(/^[\[(]/, "").replace(/[\])]$/, "");
    return t.split(/[,;\s]+/).filter(Boolean);
  }
  function canonical(kind, raw, p) {  /* one list of candidate forms per compared part */
    if (kind === "int") {
      var n = number(raw.replace(/[_,\s]/g, ""));
      if (!Number.isInteger(n)) throw new NotYet("expected a whole number, got " + raw.trim());
      return [[BigInt(n).toString()]];
    }
    if (kind === "float") return [floatForms(number(raw.replace(/[_\s]/g, "")), p)];
    if (kind === "floats") return items(raw).map(function (v) { return floatForms(number(v), p); });
    if (kind === "text") return [[text(raw)]];
    if (kind === "words") return [[items(raw).map(text).join(" ")]];
    if (kind === "set") {
      var forms = items(raw).map(function (v) {
        return NUMBER.test(v) && Number.isInteger(Number(v)) ? BigInt(Number(v)).toString() : text(v);
      });
      forms = forms.filter(function (v, i) { return forms.indexOf(v) === i; }).sort();
      return [[forms.join("|")]];
    }
    throw new Error("unknown kind " + kind);
  }
  function recallKey(raw) { return raw.toLowerCase().replace(/[^0-9a-z]/g, ""); }
  function to(p) { return p ? "to " + p + " decimals" : "as whole numbers"; }

  /* ----------------------------------------------------------------------- judging */
  function shown(spec, raw, parts) {  /* the answer as the notebook's "correct" prints it */
    if (spec.kind === "float") return Number(parts[0][0]).toFixed(spec.p);
    if (spec.kind === "floats")
      return "(" + items(raw).map(function (v) { return Number(v).toFixed(spec.p); }).join(", ") + ")";
    if (spec.kind === "int") return parts[0][0];
    return raw.trim();
  }
  /* -> {ok: bool, message: str} (the message without "correct: " / "not yet: ") */
  function judge(spec, raw) {
    if (!raw.trim()) return null;
    if (spec.kind === "recall") {
      var k = recallKey(raw);
      if (!k) return {ok: false, message: "the answer is empty"};
      if (spec.h.indexOf(formHash(spec.id, "recall", 0, k)) < 0)
        return {ok: false, message: "that is not the word the deck has in mind"};
      return {ok: true, message: "\u201c" + spec.before + raw.trim() + spec.after + "\u201d"};
    }
    var parts;
    try { parts = canonical(spec.kind, raw, spec.p); }
    catch (err) { if (err instanceof NotYet) return {ok: false, message: err.message}; throw err; }
    var trapKey = parts.map(function (forms, i) {
      return formHash(spec.id, spec.kind, i, forms[0]);
    }).join(",");
    if (spec.traps && spec.traps[trapKey])
      return {ok: false, message: decode(spec.traps[trapKey], spec.id, "trap:" + trapKey)};
    if (spec.kind === "floats") {
      if (parts.length !== spec.h.length)
        return {ok: false, message: "expected " + spec.h.length + " numbers, got " + parts.length};
      var wrong = [];
      parts.forEach(function (forms, i) {
        if (!forms.some(function (f) { return formHash(spec.id, spec.kind, i, f) === spec.h[i]; }))
          wrong.push(i + 1);
      });
      if (wrong.length)
        return {ok: false, message: "number " + wrong.join(", ") + " of " + parts.length +
                " is not right (" + to(spec.p) + ")"};
    } else if (!parts[0].some(function (f) {
      return spec.h.indexOf(formHash(spec.id, spec.kind, 0, f)) >= 0;
    })) {
      var what = spec.kind === "float" ? " (compared " + to(spec.p) + ")" : "";
      return {ok: false, message: "that is not the expected answer" + what};
    }
    var ok = decode(spec.ok, spec.id, "ok");
    return {ok: true, message: ok.split("{answer}").join(shown(spec, raw, parts))};
  }

  /* ---------------------------------------------------------------------- the page */
  function setUp(box) {
    var spec = JSON.parse(box.querySelector("script.lk-answer-data").textContent);
    var form = box.querySelector("form"), input = box.querySelector("input.lk-answer-input");
    var verdict = box.querySelector(".lk-verdict"), list = box.querySelector(".lk-hints");
    var button = box.querySelector(".lk-hint-button"), shownHints = 0;
    var recall = spec.kind === "recall";
    function label() {
      if (shownHints < spec.hints.length) {
        button.textContent = "Hint " + (shownHints + 1) + " of " + spec.hints.length;
        return;
      }
      button.textContent = "No more hints";
      button.disabled = true;
      if (recall || !spec.solution) return;
      var li = document.createElement("li"), link = document.createElement("a");
      link.href = spec.solution;
      link.textContent = spec.solution.split("/").slice(-2).join("/");
      li.className = "lk-solution";
      li.append("no more hints; the worked solution is in ", link);
      list.appendChild(li);
    }
    function hint() {
      if (shownHints >= spec.hints.length) return;
      shownHints++;
      var li = document.createElement("li");
      li.textContent = "hint " + shownHints + " of " + spec.hints.length + ": " +
        decode(spec.hints[shownHints - 1], spec.id, "hint" + shownHints);
      list.appendChild(li);
      label();
    }
    label();
    button.addEventListener("click", hint);
    if (!form) return;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var result = judge(spec, input.value);
      box.classList.remove("lk-correct", "lk-not-yet");
      if (result === null) {
        verdict.textContent = "not attempted yet (write your answer, then Check)";
        return;
      }
      box.classList.add(result.ok ? "lk-correct" : "lk-not-yet");
      verdict.textContent = (result.ok ? "correct: " : "not yet: ") + result.message;
      if (!result.ok && shownHints === 0) hint();
    });
  }
  function setUpAll() {
    document.querySelectorAll(".lk-answer").forEach(function (box) {
      if (box.dataset.lkReady) return;
      box.dataset.lkReady = "1";
      setUp(box);
    });
  }
  window.lkAnswers = {formHash: formHash, canonical: canonical, judge: judge, decode: decode,
                      recallKey: recallKey, sha256hex: function (t) { return hex(sha256(utf8(t))); }};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUpAll);
  else setUpAll();
})();
