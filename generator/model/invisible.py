"""Characters that change how text displays without showing themselves (Trojan Source).

`checks/invisible.py` refuses them where text is run, matched or compared; the renderer shows
them in prose with `show_invisible`. The commands print every file name, problem message and
index text through `printable`, which shows them and the control characters (ESC, BEL, a line
break in a file name) the same way, so none reaches a terminal or a report raw.
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


# C0 and C1 controls and DEL (ESC starts terminal sequences, OSC can retitle a window or write
# a link, a line break forges a report line), the line and paragraph separators, and the
# invisible characters above.
UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)


def printable(text: str) -> str:
    """Text from a file or a file name, safe to print: every control or invisible character
    shown as `[U+001B]`."""
    return UNPRINTABLE.sub(lambda m: visible(m.group()), text)
