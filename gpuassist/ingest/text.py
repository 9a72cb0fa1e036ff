"""Turn whatever a user hands us (a file, stdin, a paste box) into clean text, or one clear error.

People paste reports the way they got them: UTF-16 from a PowerShell redirect, Windows line endings,
inside Markdown code fences, quoted with ``> `` in an issue reply. All of that is normalised here so the
parsers only ever see plain lines.
"""

from __future__ import annotations

import codecs
import html
import re

MAX_BYTES = 20 * 1024 * 1024
BINARY = "the input is binary data, not text (expected a report, collect_env output or an error message)"


class UnreadableInput(ValueError):
    """The input cannot be diagnosed; the message is the one line shown to the user."""


def decode(data: bytes) -> str:
    if not data.strip():
        raise UnreadableInput("the input is empty")
    if len(data) > MAX_BYTES:
        raise UnreadableInput(
            f"the input is larger than {MAX_BYTES // (1024 * 1024)} MiB; a report or paste is far smaller"
        )
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(enc, "replace")
    # UTF-16 without BOM: every other byte is NUL for ASCII text.
    if len(data) >= 4 and data[1::2].count(0) > len(data) // 4 and data[0::2].count(0) < len(data) // 16:
        return data.decode("utf-16-le", "replace")
    nuls = data.count(0)
    if nuls > max(8, len(data) // 100):  # binary data; a stray NUL or two in a log (a killed write) is not
        raise UnreadableInput(BINARY)
    data = data.replace(b"\0", b"")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
    if printable < 0.9 * len(text):
        raise UnreadableInput(BINARY)
    return text


# "> " quote markers of an e-mail or issue reply; not the ">>> " prompt of a Python session.
QUOTE = re.compile(r"^\s{0,3}(?!>>>(?:\s|$))(?:>\s?)+")
# Typographic quotes an editor or a CJK input method put into a retyped message ("couldn‘t communicate"): the
# messages we match were printed with ASCII quotes.
TYPOGRAPHIC = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00a0": " ",
        "\uff1a": ": ",
        # zero-width characters a web page or chat client puts inside words (soft break points, joiners, a BOM):
        # invisible in the paste, they split a message's words for every reader
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
    }
)
FENCE = re.compile(r"^\s*(```|~~~)")
# A message copied from a web page's source, a mail archive or a scraped forum keeps its HTML escapes
# ('could not select device driver &quot;nvidia&quot;'). Only the escapes a page writes for quotes, brackets and
# ampersands are read back, so a URL's "&para=" or a word after "&" stays as it is.
HTML_ESCAPE = re.compile(r"&(?:quot|amp|lt|gt|apos|#(?:3[49]|6[02]|38)|#x(?:2[27]|3[ce]|26));", re.IGNORECASE)


def clean_lines(text: str) -> list[str]:
    """Lines without CR, quote markers, code fences and trailing blanks."""
    lines = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = QUOTE.sub("", raw).rstrip()
        if FENCE.match(line):
            # "```text" opens a block; "```NVIDIA GeForce ..." (text right after the fence) keeps its text.
            rest = FENCE.sub("", line, count=1).strip()
            if not rest or re.fullmatch(r"[\w+-]{1,20}", rest):
                continue
            line = rest
        line = HTML_ESCAPE.sub(lambda m: html.unescape(m.group(0)), line)
        # Non-breaking spaces, full-width colons ("GPU 0： Tesla P100", typed with a CJK input method), curly quotes.
        lines.append(line.translate(TYPOGRAPHIC))
    return lines
