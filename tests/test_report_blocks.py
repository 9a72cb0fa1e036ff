"""The one terminal renderer of display blocks (``diagnose --full``, ``audit --run``): every string as text,
a table that cannot fit printed a row at a time rather than cut, code indented line by line."""

from __future__ import annotations

import io

from gpuassist.report.blocks import Absent, Code, KeyValues, Series, Table, print_blocks, terminal_console


def rendered(blocks: list, width: int = 100) -> str:  # type: ignore[type-arg]
    buf = io.StringIO()
    print_blocks(terminal_console(buf, width=width, colour=False), blocks)
    return buf.getvalue()


def test_each_kind_is_printed_with_its_note_and_a_series_is_left_out() -> None:
    text = rendered(
        [
            KeyValues("How it ran", [("Script", "train.py")], note="a note"),
            Series("Curve", "x", "y", {"a": [(0.0, 1.0)]}),
            Code("Printed", "line one\nline two"),
            Absent("Copies", "None."),
        ]
    )
    assert "How it ran\nScript  train.py" in text and "a note" in text
    assert "Curve" not in text
    assert "Printed\n  line one\n  line two\n" in text  # every line indented, not the first alone
    assert "Copies: None." in text
    assert "\n\n" in text  # a blank line between blocks


def test_strings_are_never_read_as_rich_markup() -> None:
    text = rendered([Table("T [bold]x[/bold]", ["[red]col"], [["[link=x]cell[/link] [1, 2]"]])])
    assert "[bold]x[/bold]" in text and "[red]col" in text and "[link=x]cell[/link] [1, 2]" in text


def test_a_table_too_wide_for_the_terminal_is_printed_a_row_at_a_time() -> None:
    path = "/home/someone/projects/a-long-name/src/training/loop_with_a_long_name.py:123"
    code = "print(f'epoch {epoch} loss {loss.item():.4f} accuracy {accuracy:.2%}')"
    table = Table("Lines that wait", ["Line", "What it does", "Code"], [[path, "calls .item()", code]], highlight=0)
    narrow = rendered([table], width=80)
    assert f"Lines that wait\n  Line: {path}\n    What it does  calls .item()" in narrow
    assert code in " ".join(narrow.split())  # wrapped between words at most, never folded or cut
    wide = rendered([table], width=250)
    assert "┃ Line" in wide and path in wide and code in wide  # room enough: a table


def test_long_headers_over_short_cells_stay_a_table() -> None:
    """The DataLoader sweep's columns (persistent_workers, prefetch_factor, ...) are wider than their values: the
    headers are shortened, the table stays a table (the rows were printed one by one, eight lines each)."""
    columns = ["num_workers", "pin_memory", "persistent_workers", "prefetch_factor", "batches/s", "samples/s"]
    table = Table("Settings tried", columns, [["8", "yes", "yes", "4", "322.3", "10,315"]], numeric=(0, 3, 4, 5))
    out = rendered([table], width=60)
    assert "┃" in out and "10,315" in out and "num_workers:" not in out


def test_a_tight_table_keeps_every_word_whole_within_the_width() -> None:
    """rich's own shrinking folded `/tmp/t_audit.py:4` and `y=(x@x).sum().item()` mid-word at 100 columns and
    cropped the last column: the widths are now set so that each cell's words stay whole, or rows are printed."""
    row = ["/tmp/t_audit.py:4", "calls .item() (or float()/int()/bool() of a tensor)", "cpu", "50", "no step counted"]
    row += ["no (a CPU tensor)", "y=(x@x).sum().item()"]
    table = Table("Lines", ["Line", "What it does", "Tensor on", "Times", "In steps", "Waits", "Code"], [row] * 2)
    for width in (100, 120, 160):
        out = rendered([table], width=width)
        assert all(len(line) <= width for line in out.splitlines())
        assert "/tmp/t_audit.py:4" in out and "y=(x@x).sum().item()" in out and "float()/int()/bool()" in out
