"""Build concrete code changes (the lines as they are, the lines as they should be) from syntax nodes.

ast offsets count UTF-8 bytes, so lines are cut as bytes; a node spanning several lines is replaced as a
whole. Inserted lines take the indentation of the block they go into.
"""

from __future__ import annotations

import ast

from gpuassist.audit.model import CodeChange
from gpuassist.audit.source import Source


class Editor:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.lines = source.lines

    def line(self, n: int) -> str:
        return self.lines[n - 1] if 1 <= n <= len(self.lines) else ""

    def indent(self, n: int) -> str:
        text = self.line(n)
        return text[: len(text) - len(text.lstrip())]

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source.text, node) or ast.unparse(node)

    def change(self, line: int, before: list[str], after: list[str], summary: str) -> CodeChange:
        cell, local = self.source.locate(line)
        location = f"{self.source.path}:cell {cell}:{local}" if cell is not None else f"{self.source.path}:{local}"
        return CodeChange(summary, location, local, tuple(before), tuple(after))

    def replace(self, node: ast.AST, new_text: str, summary: str) -> CodeChange:
        """Replace the source of ``node`` (an expression or a statement) with ``new_text``."""
        first, last = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        before = [self.line(n) for n in range(first, last + 1)]
        head = self.line(first).encode("utf-8")[: node.col_offset]  # type: ignore[attr-defined]
        tail = self.line(last).encode("utf-8")[node.end_col_offset :]  # type: ignore[attr-defined]
        after = (head.decode("utf-8", "replace") + new_text + tail.decode("utf-8", "replace")).split("\n")
        return self.change(first, before, after, summary)

    def statement_lines(self, stmt: ast.stmt) -> list[str]:
        return [self.line(n) for n in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)]

    def insert_at_block_start(self, header: ast.stmt, body: list[ast.stmt], new: list[str], summary: str) -> CodeChange:
        """Add ``new`` as the first lines of ``header``'s block (after a ``for ...:`` line, say)."""
        first_body = body[0].lineno if body else header.lineno + 1
        head = [self.line(n) for n in range(header.lineno, max(first_body, header.lineno + 1))]
        if body and body[0].lineno == header.lineno:  # for x in y: f(x)  (one line): show it unchanged
            indent = self.indent(header.lineno) + "    "
            return self.change(header.lineno, head, head + [indent + t for t in new], summary)
        indent = self.indent(first_body) if body else self.indent(header.lineno) + "    "
        return self.change(header.lineno, head, head + [indent + t for t in new], summary)

    def insert_after(self, stmt: ast.stmt, new: list[str], summary: str) -> CodeChange:
        before = self.statement_lines(stmt)
        indent = self.indent(stmt.lineno)
        return self.change(stmt.lineno, before, before + [indent + t for t in new], summary)

    def insert_before(self, stmt: ast.stmt, new: list[str], summary: str) -> CodeChange:
        """Add ``new`` above ``stmt``; a compound statement (a whole loop) is shown by its header only."""
        body: list[ast.stmt] = getattr(stmt, "body", [])
        if body and body[0].lineno > stmt.lineno:
            before = [self.line(n) for n in range(stmt.lineno, body[0].lineno)]
        else:
            before = self.statement_lines(stmt)
        indent = self.indent(stmt.lineno)
        return self.change(stmt.lineno, before, [indent + t for t in new] + before, summary)

    def wrap(self, stmts: list[ast.stmt], header: str, summary: str) -> CodeChange:
        """Put ``stmts`` (consecutive, same block) under ``header`` (``with torch.autocast(...):``)."""
        first, last = stmts[0].lineno, stmts[-1].end_lineno or stmts[-1].lineno
        before = [self.line(n) for n in range(first, last + 1)]
        indent = self.indent(first)
        after = [indent + header] + ["    " + line if line.strip() else line for line in before]
        return self.change(first, before, after, summary)

    def delete(self, stmt: ast.stmt, summary: str) -> CodeChange:
        return self.change(stmt.lineno, self.statement_lines(stmt), [], summary)


def add_keyword(editor: Editor, call: ast.Call, keyword: str) -> str:
    """The call's source with ``keyword`` (``device=x.device``) added before the closing parenthesis."""
    text = editor.segment(call)
    if not text.endswith(")"):
        return f"{text}.to({keyword.split('=', 1)[1]})"
    body = text[:-1].rstrip()
    if body.endswith("("):
        return f"{body}{keyword})"
    return f"{body}{' ' if body.endswith(',') else ', '}{keyword})"
