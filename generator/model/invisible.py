"""Characters that change how text displays without showing themselves (Trojan Source).

`checks/invisible.py` refuses them where text is run, matched or compared; the renderer shows
them in prose with `show_invisible`.
"""

from __future__ import annotations

import re

# Bidi embeddings, overrides, isolates and marks; zero-width space, joiners, word joiner,
# invisible operators and the BOM used as a zero-width no-break space.
INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
NAMES = {
    "\u061c": "arabic letter mark",
    "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner",
    "\u200d": "zero-width joiner",
    "\u200e": "left-to-right mark",
    "\u200f": "right-to-left mark",
    "\u202a": "left-to-right embedding",
    "\u202b": "right-to-left embedding",
    "\u202c": "pop directional formatting",
    "\u202d": "left-to-right override",
    "\u202e": "right-to-left override",
    "\u2060": "word joiner",
    "\u2061": "function application",
    "\u2062": "invisible times",
    "\u2063": "invisible separator",
    "\u2064": "invisible plus",
    "\u2066": "left-to-right isolate",
    "\u2067": "right-to-left isolate",
    "\u2068": "first strong isolate",
    "\u2069": "pop directional isolate",
    "\ufeff": "zero-width no-break space",
}


def visible(char: str) -> str:
    """How prose shows an invisible character: its code point, in brackets (nothing to
    escape, in HTML text, attributes or JSON)."""
    return f"[U+{ord(char):04X}]"


def show_invisible(text: str) -> str:
    return INVISIBLE.sub(lambda m: visible(m.group()), text)
