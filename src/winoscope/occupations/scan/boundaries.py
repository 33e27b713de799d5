"""Word boundaries in raw UTF-8 bytes, decided with numpy for many matches at once.

The characters before and after a match must not be letters or digits; they are decoded from
the UTF-8 bytes around the match only, and an apostrophe between letters is part of the word
(so ``з'їла`` does not contain ``їла``).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .streams import NEWLINE

_SENTINEL = 0x10000  # code point slot for characters outside the BMP: never a word character


@cache
def word_table() -> np.ndarray:
    """``table[code point]`` is True for letters, digits and '_' (BMP; one slot for the rest)."""
    table = np.zeros(_SENTINEL + 1, bool)
    for cp in range(_SENTINEL):
        ch = chr(cp)
        table[cp] = ch.isalnum() or ch == "_"
    return table


_APOSTROPHE_CPS = np.array([ord("'"), ord("’")])


def _byte_getter(a: np.ndarray):  # type: ignore[no-untyped-def]
    last = len(a) - 1

    def get(idx: np.ndarray) -> np.ndarray:
        inside = (idx >= 0) & (idx <= last)
        return np.where(inside, a[np.clip(idx, 0, last)], NEWLINE).astype(np.int64)

    return get


def _decode(
    masks: tuple[np.ndarray, np.ndarray, np.ndarray],
    ascii_byte: np.ndarray,
    pair: tuple[np.ndarray, np.ndarray],
    triple: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Code points and byte lengths of characters of one, two or three UTF-8 bytes (``masks``
    says which, disjointly); ``pair``/``triple`` are their bytes in order, anything longer gets
    the sentinel and length 4."""
    one, two, three = masks
    cp = np.full(len(one), _SENTINEL, np.int64)
    cp = np.where(one, ascii_byte, cp)
    cp = np.where(two, ((pair[0] & 0x1F) << 6) | (pair[1] & 0x3F), cp)
    lead, mid, last = triple
    cp = np.where(three, ((lead & 0x0F) << 12) | ((mid & 0x3F) << 6) | (last & 0x3F), cp)
    length = np.where(one, 1, np.where(two, 2, np.where(three, 3, 4)))
    return cp, length


def _char_before(get, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """Code point and byte length of the character that ends just before ``pos``."""
    b1, b2, b3 = get(pos - 1), get(pos - 2), get(pos - 3)
    one = b1 < 0x80
    two = ~one & ((b2 & 0xE0) == 0xC0)
    three = ~one & ~two & ((b3 & 0xF0) == 0xE0)
    return _decode((one, two, three), b1, (b2, b1), (b3, b2, b1))


def _char_at(get, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """Code point and byte length of the character that starts at ``pos``."""
    c1, c2, c3 = get(pos), get(pos + 1), get(pos + 2)
    masks = (c1 < 0x80, (c1 & 0xE0) == 0xC0, (c1 & 0xF0) == 0xE0)
    return _decode(masks, c1, (c1, c2), (c1, c2, c3))


def at_word_boundaries(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """True where the match [start, end) is a whole word of the UTF-8 bytes ``a``.

    Most neighbours are ASCII (a space, a comma), read straight from the byte; only matches
    next to a non-ASCII byte or an ASCII apostrophe decode the neighbouring character.
    """
    table = word_table()
    last = len(a) - 1
    before = a[np.clip(start - 1, 0, last)].astype(np.int64)
    before[start == 0] = NEWLINE
    after = a[np.clip(end, 0, last)].astype(np.int64)
    after[end > last] = NEWLINE
    inside_before = table[before]  # right for ASCII; fixed below for the rest
    inside_after = table[after]
    slow = np.flatnonzero((before >= 0x80) | (before == 0x27))
    if len(slow):
        inside_before[slow] = _inside_before(a, start[slow], table)
    slow = np.flatnonzero((after >= 0x80) | (after == 0x27))
    if len(slow):
        inside_after[slow] = _inside_after(a, end[slow], table)
    return ~inside_before & ~inside_after


def _inside_before(a: np.ndarray, start: np.ndarray, table: np.ndarray) -> np.ndarray:
    get = _byte_getter(a)
    cp, length = _char_before(get, start)
    inside = table[cp]
    apos = np.isin(cp, _APOSTROPHE_CPS)  # part of the word only with a letter beyond it
    if apos.any():
        far, _ = _char_before(get, start[apos] - length[apos])
        inside[apos] = table[far]
    return inside


def _inside_after(a: np.ndarray, end: np.ndarray, table: np.ndarray) -> np.ndarray:
    get = _byte_getter(a)
    cp, length = _char_at(get, end)
    inside = table[cp]
    apos = np.isin(cp, _APOSTROPHE_CPS)
    if apos.any():
        far, _ = _char_at(get, end[apos] + length[apos])
        inside[apos] = table[far]
    return inside
