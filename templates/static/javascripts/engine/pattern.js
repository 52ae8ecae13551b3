// The signature dialect and its linear-time matcher: a port of generator/diagnose/pattern.py.
//
// A pattern is literal text in which {int} {num} {hex} {pci} {word} {token} and {*} stand for
// the parts that vary, and {{ / }} for literal braces. It matches anywhere inside one line,
// case-sensitively. Matching is a bit-parallel simulation of the pattern's automaton
// (Shift-And with repeatable and sticky positions) over the line's code points, so the cost of
// a line is linear in its length whatever the pattern: there is no backtracking.
//
// Both engines must give the same answer on every line: the parity and property tests in
// tests/browser/test_diagnose_*.py run this file against the Python module.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var MAX_PATTERN_CHARS = 400;
  var MIN_ANCHOR_CHARS = 8;

  // Characters outside ASCII for which Python's str.isspace() is true. (JavaScript's \s differs:
  // it takes U+FEFF and leaves out U+0085.) Only {token} admits non-ASCII characters.
  var NON_ASCII_SPACE = new Set([
    0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
    0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
  ]);
  // ASCII characters for which str.isspace() is true: TAB LF VT FF CR, FS GS RS US, SPACE.
  var ASCII_SPACE = "\t\n\u000b\f\r\u001c\u001d\u001e\u001f ";

  function asciiMembers(chars) {
    var members = new Uint8Array(128);
    for (var i = 0; i < chars.length; i++) members[chars.charCodeAt(i)] = 1;
    return members;
  }

  var DIGITS = "0123456789";
  var HEX = DIGITS + "abcdefABCDEF";
  var WORD = DIGITS + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
  var NOT_SPACE = "";
  for (var c = 0; c < 128; c++) {
    if (ASCII_SPACE.indexOf(String.fromCharCode(c)) < 0) NOT_SPACE += String.fromCharCode(c);
  }

  function charClass(name, description, chars, nonAscii) {
    return { name: name, description: description, members: asciiMembers(chars), nonAscii: nonAscii };
  }

  var CLASSES = {
    int: charClass("int", "one or more digits", DIGITS, false),
    num: charClass("num", "one or more of 0-9 . -", DIGITS + ".-", false),
    hex: charClass("hex", "one or more of 0-9 a-f A-F x", HEX + "x", false),
    pci: charClass("pci", "one or more of 0-9 a-f A-F : .", HEX + ":.", false),
    word: charClass("word", "one or more of A-Z a-z 0-9 _", WORD, false),
    token: charClass("token", "one or more non-space characters", NOT_SPACE, true),
  };
  var ANY = "*";
  var PLACEHOLDERS = Object.keys(CLASSES).concat([ANY]);

  function classContains(cls, cp) {
    if (cp < 128) return cls.members[cp] === 1;
    return cls.nonAscii && !NON_ASCII_SPACE.has(cp);
  }

  function PatternError(message, offset) {
    var error = new Error(message);
    error.name = "PatternError";
    error.offset = offset || 0;
    return error;
  }

  // Length in code points, as Python's len() counts a str.
  function cpLength(text) {
    var n = 0;
    for (var i = 0; i < text.length; i++) {
      var u = text.charCodeAt(i);
      if (u >= 0xd800 && u < 0xdc00 && i + 1 < text.length) {
        var v = text.charCodeAt(i + 1);
        if (v >= 0xdc00 && v < 0xe000) i++;
      }
      n++;
    }
    return n;
  }

  // The code points of a string, pairing surrogates as Python's str holds them.
  function codePoints(text) {
    var out = [];
    for (var i = 0; i < text.length; i++) {
      var u = text.charCodeAt(i);
      if (u >= 0xd800 && u < 0xdc00 && i + 1 < text.length) {
        var v = text.charCodeAt(i + 1);
        if (v >= 0xdc00 && v < 0xe000) {
          out.push((u - 0xd800) * 0x400 + (v - 0xdc00) + 0x10000);
          i++;
          continue;
        }
      }
      out.push(u);
    }
    return out;
  }

  var PLACEHOLDER = /\{([^{}]*)\}/y;
  // What an unclosed `{` starts: its name, up to the first space or brace.
  var OPENED = /\{[^{} ]*/y;

  // Part of a pattern quoted in a message: at most `limit` characters (pattern.py's _cut).
  function cut(text) {
    var limit = 20;
    var length = cpLength(text);
    if (length <= limit) return text;
    return Array.from(text).slice(0, limit).join("") + "... (" + length + " characters)";
  }

  // Split a pattern into literal text, class runs and gaps, or throw a PatternError.
  function parse(pattern) {
    var length = cpLength(pattern);
    if (length > MAX_PATTERN_CHARS) {
      throw PatternError(
        "pattern is " + length + " characters; the limit is " + MAX_PATTERN_CHARS
      );
    }
    if (pattern.indexOf("\n") >= 0 || pattern.indexOf("\r") >= 0) {
      throw PatternError("a pattern matches one line; it cannot contain a line break");
    }
    var tokens = [];
    var literal = "";
    var i = 0;
    while (i < pattern.length) {
      var ch = pattern[i];
      if (pattern.startsWith("{{", i) || pattern.startsWith("}}", i)) {
        literal += ch;
        i += 2;
        continue;
      }
      if (ch === "{") {
        PLACEHOLDER.lastIndex = i;
        var m = PLACEHOLDER.exec(pattern);
        if (m === null) {
          OPENED.lastIndex = i;
          var opened = OPENED.exec(pattern);
          throw PatternError(
            "placeholder " + cut(opened ? opened[0] : "{") + " is not closed; " +
              "end it with } or write {{ for a literal brace",
            i
          );
        }
        if (PLACEHOLDERS.indexOf(m[1]) < 0) {
          throw PatternError(
            "unknown placeholder " + cut(m[0]) + "; use one of " +
              PLACEHOLDERS.map(function (p) { return "{" + p + "}"; }).join(", ") +
              ", or {{ for a literal brace",
            i
          );
        }
        if (literal) {
          tokens.push({ kind: "lit", text: literal });
          literal = "";
        }
        if (m[1] === ANY) {
          if (tokens.length && tokens[tokens.length - 1].kind === "gap") {
            throw PatternError("two {*} in a row; one is enough", i);
          }
          tokens.push({ kind: "gap" });
        } else {
          tokens.push({ kind: "run", cls: CLASSES[m[1]] });
        }
        i = PLACEHOLDER.lastIndex;
        continue;
      }
      if (ch === "}") throw PatternError("a lone } must be written }} ", i);
      literal += ch;
      i += 1;
    }
    if (literal) tokens.push({ kind: "lit", text: literal });
    if (!tokens.length || tokens[0].kind !== "lit") {
      throw PatternError(
        "a pattern starts with literal text; a leading placeholder adds nothing because " +
          "patterns match anywhere in a line"
      );
    }
    if (tokens[tokens.length - 1].kind === "gap") {
      throw PatternError("drop the trailing {*}: patterns match anywhere in a line", length - 3);
    }
    var longest = 0;
    tokens.forEach(function (t) {
      if (t.kind === "lit") longest = Math.max(longest, cpLength(t.text));
    });
    if (longest < MIN_ANCHOR_CHARS) {
      throw PatternError(
        "a pattern needs a literal run of at least " + MIN_ANCHOR_CHARS + " characters, " +
          "so that it is specific and can be found fast"
      );
    }
    return tokens;
  }

  function literals(tokens) {
    return tokens.filter(function (t) { return t.kind === "lit"; }).map(function (t) { return t.text; });
  }

  // The longest literal (the first of the longest, as Python's max() picks): every matching
  // line contains it, so it is the prefilter's key.
  function anchor(tokens) {
    var best = null;
    var bestLength = -1;
    literals(tokens).forEach(function (text) {
      var n = cpLength(text);
      if (n > bestLength) {
        best = text;
        bestLength = n;
      }
    });
    return best;
  }

  // A compiled pattern. search(line) costs O(length of line x words of state), no backtracking.
  //
  // Bit i of the state is set when the pattern up to position i matches text ending at the
  // current character. A literal character is one position; a class run is one position that
  // may repeat; the position before a gap is sticky, since once reached it stays reachable.
  function Matcher(pattern) {
    this.pattern = pattern;
    this.tokens = parse(pattern);
    this.literals = literals(this.tokens);
    this.first = this.literals[0];
    this.anchor = anchor(this.tokens);
    this.plain = this.tokens.length === 1;
    var positions = [];
    var repeatAt = [];
    var stickyAt = [];
    this.tokens.forEach(function (t) {
      if (t.kind === "lit") {
        codePoints(t.text).forEach(function (cp) { positions.push(cp); });
      } else if (t.kind === "run") {
        repeatAt.push(positions.length);
        positions.push(t.cls);
      } else {
        stickyAt.push(positions.length - 1);
      }
    });
    var n = positions.length;
    var words = (n + 31) >>> 5;
    this.positions = positions;
    this.words = words;
    this.repeat = new Int32Array(words);
    this.sticky = new Int32Array(words);
    repeatAt.forEach(function (p) { this.repeat[p >>> 5] |= 1 << (p & 31); }, this);
    stickyAt.forEach(function (p) { this.sticky[p >>> 5] |= 1 << (p & 31); }, this);
    this.finalWord = (n - 1) >>> 5;
    this.finalBit = 1 << ((n - 1) & 31);
    this.masks = new Map();
    this.asciiMasks = new Array(128);
    this.state = new Int32Array(words);
    this.next = new Int32Array(words);
    // A search begins where the first literal stands (a match starts with it), so its first
    // characters are always the literal's: the state after them is computed once, here. (Not
    // when the literal ends in a high surrogate, which the line's next character may pair.)
    this.firstState = null;
    this.firstFinal = false;
    var last = this.first.charCodeAt(this.first.length - 1);
    if (!this.plain && !(last >= 0xd800 && last < 0xdc00)) this.feedFirst();
  }

  // The state after the first literal, read from the empty state as search reads a line.
  Matcher.prototype.feedFirst = function () {
    var words = this.words;
    var state = new Int32Array(words);
    var next = new Int32Array(words);
    var text = this.first;
    for (var i = 0; i < text.length; i++) {
      var cp = text.codePointAt(i);
      if (cp > 0xffff) i++;
      var b = this.mask(cp);
      var carry = 1;
      for (var w = 0; w < words; w++) {
        var s = state[w];
        var bw = words === 1 ? b : b[w];
        next[w] = (((s << 1) | carry) & bw) | (s & this.repeat[w] & bw) | (s & this.sticky[w]);
        carry = s >>> 31;
      }
      var swap = state;
      state = next;
      next = swap;
      if ((state[this.finalWord] & this.finalBit) !== 0) this.firstFinal = true;
    }
    this.firstState = state;
  };

  Matcher.prototype.mask = function (cp) {
    var mask = cp < 128 ? this.asciiMasks[cp] : this.masks.get(cp);
    if (mask !== undefined) return mask;
    mask = new Int32Array(this.words);
    var positions = this.positions;
    for (var i = 0; i < positions.length; i++) {
      var p = positions[i];
      if (typeof p === "number" ? p === cp : classContains(p, cp)) {
        mask[i >>> 5] |= 1 << (i & 31);
      }
    }
    if (this.words === 1) mask = mask[0];
    if (cp < 128) this.asciiMasks[cp] = mask;
    else if (this.masks.size < 4096) this.masks.set(cp, mask);
    return mask;
  };

  Matcher.prototype.search = function (line) {
    var start = line.indexOf(this.first);
    if (start < 0) return false;
    if (this.plain) return true;
    for (var k = 0; k < this.literals.length; k++) {
      if (line.indexOf(this.literals[k]) < 0) return false;
    }
    return this.words === 1 ? this.searchOneWord(line, start) : this.searchWords(line, start);
  };

  Matcher.prototype.searchOneWord = function (line, start) {
    var repeat = this.repeat[0];
    var sticky = this.sticky[0];
    var final = this.finalBit;
    var state = 0;
    var length = line.length;
    var i = start;
    if (this.firstState !== null) {
      if (this.firstFinal) return true;
      state = this.firstState[0];
      i = start + this.first.length;
    }
    for (; i < length; i++) {
      // A whole code point, as Python sees one; a lone surrogate stays itself.
      var cp = line.codePointAt(i);
      if (cp > 0xffff) i++;
      var b = cp < 128 ? this.asciiMasks[cp] : undefined;
      if (b === undefined) b = this.mask(cp);
      state = (((state << 1) | 1) & b) | (state & repeat & b) | (state & sticky);
      if ((state & final) !== 0) return true;
    }
    return false;
  };

  Matcher.prototype.searchWords = function (line, start) {
    var words = this.words;
    var repeat = this.repeat;
    var sticky = this.sticky;
    var state = this.state;
    var next = this.next;
    var finalWord = this.finalWord;
    var finalBit = this.finalBit;
    var length = line.length;
    var i = start;
    if (this.firstState !== null) {
      if (this.firstFinal) return true;
      state.set(this.firstState);
      i = start + this.first.length;
    } else {
      state.fill(0);
    }
    for (; i < length; i++) {
      // A whole code point, as Python sees one; a lone surrogate stays itself.
      var cp = line.codePointAt(i);
      if (cp > 0xffff) i++;
      var b = this.mask(cp);
      var carry = 1;
      for (var w = 0; w < words; w++) {
        var s = state[w];
        var bw = b[w];
        next[w] = (((s << 1) | carry) & bw) | (s & repeat[w] & bw) | (s & sticky[w]);
        carry = s >>> 31;
      }
      var swap = state;
      state = next;
      next = swap;
      if ((state[finalWord] & finalBit) !== 0) {
        this.state = state;
        this.next = next;
        return true;
      }
    }
    this.state = state;
    this.next = next;
    return false;
  };

  function describePlaceholders() {
    return Object.keys(CLASSES).map(function (k) {
      return "{" + k + "} (" + CLASSES[k].description + ")";
    }).join(", ") + ", {*} (anything, possibly nothing)";
  }

  E.MAX_PATTERN_CHARS = MAX_PATTERN_CHARS;
  E.MIN_ANCHOR_CHARS = MIN_ANCHOR_CHARS;
  E.CLASSES = CLASSES;
  E.PLACEHOLDERS = PLACEHOLDERS;
  E.parse = parse;
  E.anchor = anchor;
  E.cpLength = cpLength;
  E.codePoints = codePoints;
  E.Matcher = Matcher;
  E.describePlaceholders = describePlaceholders;
})(typeof self !== "undefined" ? self : globalThis);
