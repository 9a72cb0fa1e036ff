"""The static audit (issue #7, item 1): findings at their exact lines on scripts written for it, no error on
correct idiomatic scripts, the CLI contract, and that the audited code is never executed.

Every script under tests/data/audit/ marks what it must produce on the line where it must appear:
``# expect: ID SEVERITY`` (several separated by ``;``). A script gives exactly its marked findings: no
more (precision), no fewer (recall). ``ok_*`` scripts are correct training code in the styles real
projects use; they may carry hints but never an error.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpuassist.audit import (
    AUDIT_IDS,
    SCHEMA,
    AuditInputError,
    audit_paths,
    audit_text,
    read_source,
    render_json,
    render_text,
)
from gpuassist.cli import main
from gpuassist.findings import Severity
from gpuassist.knowledge import catalogue

DATA = Path(__file__).parent / "data" / "audit"
SCRIPTS = sorted(p.name for p in DATA.iterdir() if p.suffix in (".py", ".ipynb"))
OK_SCRIPTS = [s for s in SCRIPTS if s.startswith("ok_")]
LINE = re.compile(
    r"^(?P<path>.+?):(?:cell (?P<cell>\d+):)?(?P<line>\d+):(?P<col>\d+) (?P<id>[a-z0-9_]+) "
    r"\[(?P<severity>error|warning|info)\] (?P<message>.+)$"
)


def expected(path: Path) -> set[tuple[int | None, int, str, str]]:
    source = read_source(str(path))
    out = set()
    for number, text in enumerate(source.lines, start=1):
        m = re.search(r"# expect: (.*)$", text)
        if m:
            cell, line = source.locate(number)
            for part in m.group(1).split(";"):
                fid, severity = part.split()
                out.add((cell, line, fid, severity))
    return out


def found(path: Path) -> set[tuple[int | None, int, str, str]]:
    return {(f.cell, f.line, f.id, f.severity.value) for f in audit_paths([str(path)]).findings}


def ids(text: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.id, f.severity.value) for f in audit_text(text)]


# -- the scripts ---------------------------------------------------------------------------------------
def test_there_are_broken_and_correct_scripts_of_every_style() -> None:
    assert len([s for s in SCRIPTS if s.startswith("broken_")]) >= 10
    assert len(OK_SCRIPTS) >= 8
    assert {"ok_notebook.ipynb", "broken_notebook.ipynb"} <= set(SCRIPTS)
    marked = {fid for s in SCRIPTS for _, _, fid, _ in expected(DATA / s)}
    assert marked == set(AUDIT_IDS)  # every rule is exercised at a line


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_script_gives_exactly_its_marked_findings(name: str) -> None:
    want = expected(DATA / name)
    got = found(DATA / name)
    assert got == want, f"missing {sorted(want - got, key=str)}, unexpected {sorted(got - want, key=str)}"


@pytest.mark.parametrize("name", OK_SCRIPTS)
def test_correct_idiomatic_scripts_have_no_error(name: str) -> None:
    findings = audit_paths([str(DATA / name)]).findings
    assert not [f for f in findings if f.severity is Severity.ERROR]


def test_classic_model_on_gpu_batches_on_cpu() -> None:
    result = audit_paths([str(DATA / "broken_batches_on_cpu.py")])
    f = next(x for x in result.findings if x.id == "tensors_on_different_devices")
    assert (f.line, f.col, f.severity) == (20, 22, Severity.ERROR)  # the `X` in `model(X)`
    assert "`X` and `y` come from `train_loader`" in f.message and "model(X)" in f.message
    assert f.fix.location.endswith("broken_batches_on_cpu.py:19")
    assert f.fix.after == (f.fix.before[0], "        X, y = X.to(device), y.to(device)")


def test_classic_tensor_without_device_added_to_a_gpu_tensor() -> None:
    result = audit_paths([str(DATA / "broken_tensor_without_device.py")])
    first = result.findings[0]
    assert (first.line, first.col, first.id) == (6, 5, "tensors_on_different_devices")
    assert "`torch.ones(3)` creates a tensor on the CPU" in first.message and "x + y" in first.message
    assert first.fix.before == ("y = torch.ones(3)  # expect: tensors_on_different_devices error",)
    assert first.fix.after == ("y = torch.ones(3, device=x.device)  # expect: tensors_on_different_devices error",)
    buffer = next(x for x in result.findings if x.line == 14)
    assert buffer.fix.after[0].strip().startswith('self.register_buffer("mask", torch.tril(')


def test_every_finding_carries_a_concrete_code_change() -> None:
    result = audit_paths([str(DATA / s) for s in SCRIPTS])
    assert result.findings
    for f in result.findings:
        assert f.id in catalogue() and f.id in AUDIT_IDS
        assert f.fix.before != f.fix.after and f.fix.summary
        assert f.fix.diff_lines() and any(d.startswith(("+", "-")) for d in f.fix.diff_lines())
        assert f.code.strip()  # the source line it points at


def test_notebook_findings_name_the_cell() -> None:
    result = audit_paths([str(DATA / "broken_notebook.ipynb")])
    batch = next(f for f in result.findings if f.id == "tensors_on_different_devices")
    assert batch.location.endswith("broken_notebook.ipynb:cell 6:3:22")
    assert batch.fix.location.endswith("broken_notebook.ipynb:cell 6:2")
    assert result.files[0].skipped_cells == ((5, "cell magic %%bash (not Python run in the notebook)"),)
    loader = next(f for f in result.findings if f.id == "dataloader_starvation")
    assert "notebook" in loader.message  # workers from a notebook need an importable Dataset on Windows/macOS


def test_notebook_magics_are_skipped_line_by_line() -> None:
    ok = audit_paths([str(DATA / "ok_notebook.ipynb")])
    assert ok.files[0].skipped_cells == ()  # `!pip`, `%matplotlib`, `%%time`, `model?` are all handled
    assert not ok.findings


def test_a_notebook_cell_that_does_not_parse_is_skipped_not_the_notebook(tmp_path: Path) -> None:
    cells = [
        ["import torch\n", "x = torch.randn(3, device='cuda')\n"],
        ["def broken(:\n", "    pass\n"],
        ["y = torch.ones(3)\n", "z = x + y\n"],
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": c} for c in cells]}))
    result = audit_paths([str(path)])
    [(cell, reason)] = result.files[0].skipped_cells
    assert cell == 2 and reason.startswith("syntax error at line 1: ")
    assert [f.location for f in result.findings] == [f"{path}:cell 3:1:5"]
    assert f"{path}:cell 2: note: cell not audited: syntax error" in render_text(result)


# -- rules on small snippets -----------------------------------------------------------------------------
TRAIN = """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)
model = nn.Linear(4, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2, num_workers=2, pin_memory=True)
"""


def test_item_every_n_steps_is_not_a_per_step_sync() -> None:
    code = (
        TRAIN
        + """
for step, (x, y) in enumerate(loader):
    x, y = x.to(device), y.to(device)
    with torch.autocast("cuda"):
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(loss.item())
with torch.no_grad():
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
"""
    )
    assert ids(code) == []


def test_sync_inside_a_per_step_function_called_from_the_loop() -> None:
    code = (
        TRAIN
        + """
def train_step(x, y):
    with torch.autocast("cuda"):
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()
for x, y in loader:
    last = train_step(x, y)
"""
    )
    assert ids(code) == [(16, "host_device_sync_in_loop", "warning")]


def test_batches_moved_by_any_idiom_are_moved() -> None:
    code = (
        TRAIN
        + """
def to_device(batch, device):
    return [t.to(device) for t in batch]
for batch in loader:
    a, b = to_device(batch, device)
    c, d = [t.to(device, non_blocking=True) for t in batch]
    e, f = tuple(t.cuda() for t in batch)
    g, h = batch
    g = g.to(device)
    h = h.to(device=device)
    with torch.autocast("cuda"):
        loss = model(a).sum() + model(c).sum() + model(e).sum() + nn.functional.mse_loss(model(g), h)
    loss.backward()
    opt.step()
"""
    )
    assert ids(code) == []


def test_model_moved_inside_a_helper_or_passed_to_unknown_code_is_not_judged() -> None:
    code = """
import torch
from torch import nn
import somewhere
device = torch.device("cuda")
def place(m, device):
    m.to(device)
a = nn.Linear(2, 2)
place(a, device)
b = nn.Linear(2, 2)
somewhere.prepare(b)
for step in range(3):
    x = torch.randn(1, 2, device=device)
    loss = a(x).sum() + b(x).sum()
    loss.backward()
"""
    assert [i for i in ids(code) if i[2] == "error"] == []


def test_loaders_that_may_yield_gpu_batches_are_not_judged() -> None:
    moved_model = TRAIN.replace("loader = torch.utils", "plain = torch.utils")
    built_with_device = (
        moved_model
        + """
from mydata import WindowDataset
loader = torch.utils.data.DataLoader(WindowDataset("x.npy", device), batch_size=2)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
"""
    )
    assert [i for i in ids(built_with_device) if i[1] == "tensors_on_different_devices"] == []
    dali = (
        moved_model
        + """
from nvidia.dali.plugin.pytorch import DALIGenericIterator
from mydata import make_train_loader
train_loader = make_train_loader()
for x, y in train_loader:
    loss = nn.functional.cross_entropy(model(x), y)
"""
    )
    assert [i for i in ids(dali) if i[1] == "tensors_on_different_devices"] == []
    assert ids(dali.replace("from nvidia.dali.plugin.pytorch import DALIGenericIterator\n", ""))[0][1:] == (
        "tensors_on_different_devices",
        "error",
    )  # the same loop with an ordinary loader


def test_a_loader_wrapped_by_a_prefetcher_is_not_judged_but_a_progress_bar_changes_nothing() -> None:
    loop = (
        TRAIN.replace("loader = torch.utils", "base = torch.utils")
        + """
from timm.data import PrefetchLoader
from tqdm import tqdm
loader = WRAP(base)
for step, (x, y) in enumerate(loader):
    with torch.autocast("cuda"):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
"""
    )
    assert ids(loop.replace("WRAP", "PrefetchLoader")) == []  # it moves the batches to the GPU itself
    assert ids(loop.replace("WRAP", "tqdm"))[0][1:] == ("tensors_on_different_devices", "error")


def test_data_parallel_wrappers_move_their_inputs() -> None:
    code = """
import torch
from torch import nn
model = nn.DataParallel(nn.Linear(4, 2).cuda())
x = torch.randn(8, 4)
y = model(x)
"""
    assert ids(code) == [(4, "multi_gpu_unused", "warning")]


def test_zero_dim_and_explicit_cpu_tensors_are_not_mixing_errors() -> None:
    code = """
import torch
x = torch.randn(3, device="cuda")
scaled = x * torch.tensor(0.5)
host = torch.zeros(3, device="cpu")
w = torch.ones(3)
normed = x / w.norm() + torch.sum(w)
"""
    assert ids(code) == []  # a full reduction (`w.norm()`, `torch.sum(w)`) is 0-dim
    assert ids(code + "stats = x - w.mean(dim=0)\n") == [(6, "tensors_on_different_devices", "error")]


def test_a_tensor_copied_to_the_cpu_is_blamed_on_the_copy() -> None:
    code = """
import torch
labels = torch.randint(0, 3, (8,), device="cuda")
logits = torch.randn(8, 3, device="cuda")
preds = logits.argmax(1).cpu()
correct = (preds == labels).sum()
"""
    [f] = audit_text(code)
    assert (f.line, f.id, f.severity) == (5, "tensors_on_different_devices", Severity.ERROR)
    assert f.message.startswith("`logits.argmax(1).cpu()` copies the tensor to the CPU; it meets `labels` on the GPU")
    assert f.fix.after == ("preds = logits.argmax(1)",)  # not "create logits with device=": it was


def test_a_sync_whose_value_makes_the_next_input_is_not_reported() -> None:
    rl = (
        TRAIN
        + """
import gymnasium as gym
env = gym.make("CartPole-v1")
obs, _ = env.reset()
for step in range(1000):
    state = torch.as_tensor(obs, device=device)
    with torch.autocast("cuda"):
        action = model(state).argmax()
    obs, reward, terminated, truncated, _ = env.step(action.item())
    loss = -model(state).sum() * reward
    loss.backward()
    opt.step()
"""
    )
    assert ids(rl) == []  # the environment needs the action on the host: no step can be queued ahead anyway
    logged = rl.replace("    obs, reward, terminated", "    last = loss.item()\n    obs, reward, terminated")
    assert ids(logged) == [(17, "host_device_sync_in_loop", "warning")]


def test_time_based_logging_is_periodic() -> None:
    code = (
        TRAIN
        + """
import time
last = time.monotonic()
for x, y in loader:
    x, y = x.to(device), y.to(device)
    with torch.autocast("cuda"):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    if time.monotonic() - last > 10:
        print(loss.item())
        last = time.monotonic()
"""
    )
    assert ids(code) == []


def test_tf32_hint_goes_before_the_outermost_loop() -> None:
    code = (
        TRAIN
        + """
def optimize():
    loss = model(torch.randn(4, 4, device=device)).sum()
    loss.backward()
    opt.step()
for episode in range(10):
    for t in range(100):
        optimize()
"""
    )
    [f] = audit_text(code)
    assert (f.id, f.line) == ("amp_tf32_not_used", 15)  # the step loop
    assert f.fix.line == 14 and f.fix.before == ("for episode in range(10):",)  # not inside a loop, not a whole loop
    assert f.fix.after == ('torch.set_float32_matmul_precision("high")', "for episode in range(10):")


def test_a_device_chosen_by_the_user_is_not_a_silent_fallback() -> None:
    code = """
import argparse
import torch
from torch import nn
args = argparse.ArgumentParser().parse_args()
device = torch.device(f"cuda:{args.gpu}" if args.gpu >= 0 else "cpu")
model = nn.Linear(4, 2).to(device)
for _ in range(3):
    model(torch.randn(2, 4, device=device)).sum().backward()
"""
    assert [i[1] for i in ids(code)] == ["amp_tf32_not_used"]  # f"cuda:{...}" is a GPU; --gpu -1 is a choice
    fallback = code.replace("args.gpu >= 0", "torch.cuda.is_available()")
    assert (6, "workload_left_on_cpu", "info") in ids(fallback)


def test_the_old_default_tensor_type_puts_factories_on_the_gpu() -> None:
    code = """
import torch
from torch import nn
torch.set_default_tensor_type(torch.cuda.FloatTensor)
model = nn.Linear(3, 3).cuda()
y = model(torch.randn(4, 3)) + torch.ones(3)
"""
    assert ids(code) == []
    assert len(ids(code.replace("torch.cuda.FloatTensor", "torch.FloatTensor"))) == 2


def test_lists_become_tensors_on_the_cpu() -> None:
    code = (
        TRAIN
        + """
for step in range(10):
    x = torch.randn(8, 4, device=device)
    labels = [0, 1, 0, 1, 0, 1, 0, 1]
    with torch.autocast("cuda"):
        loss = nn.functional.cross_entropy(model(x), torch.tensor(labels))
    loss.backward()
"""
    )
    assert ids(code) == [(14, "tensors_on_different_devices", "error")]


def test_model_moved_after_the_loop_is_too_late() -> None:
    code = """
import torch
from torch import nn
device = "cuda"
model = nn.Linear(4, 3)
for step in range(5):
    x = torch.randn(2, 4).to(device)
    with torch.autocast("cuda"):
        loss = model(x).sum()
    loss.backward()
model.to(device)
"""
    assert ids(code) == [(9, "tensors_on_different_devices", "error")]


def test_a_layer_replaced_after_the_move_is_fine_once_the_model_is_moved_again() -> None:
    code = """
import torch
import torchvision
from torch import nn
device = torch.device("cuda")
model = torchvision.models.resnet18().to(device)
model.fc = nn.Linear(model.fc.in_features, 2)
model = model.to(device)
out = model(torch.randn(1, 3, 224, 224, device=device))
"""
    assert [i for i in ids(code) if i[2] == "error"] == []
    run_first = code.replace("model = model.to(device)\nout = model(", "out = model(") + "model = model.to(device)\n"
    assert [i for i in ids(run_first) if i[2] == "error"] == [(7, "tensors_on_different_devices", "error")]
    never = code.replace("model = model.to(device)\n", "")
    assert [i for i in ids(never) if i[2] == "error"] == [(7, "tensors_on_different_devices", "error")]


def test_inputs_forward_takes_on_the_cpu_on_purpose_are_not_judged_the_others_are() -> None:
    packed = (DATA / "ok_packed_sequences.py").read_text()
    moved = "        text, labels = text.to(device, non_blocking=True), labels.to(device, non_blocking=True)\n"
    assert moved in packed
    [f] = [
        f
        for f in audit_text(packed.replace(moved, "        labels = labels.to(device)\n"))
        if f.severity is Severity.ERROR
    ]
    assert f.message.startswith("`text` comes from `train_loader`")  # `lengths` stays on the CPU: right
    assert f.fix.after[-1].strip() == "text = text.to(device)"
    detectron = (DATA / "ok_detectron_style.py").read_text()
    own_move = '[x["image"].to(self.device, non_blocking=True) for x in batched_inputs]'
    assert own_move in detectron
    labels = 'torch.stack([x["label"] for x in batched_inputs])'
    unmoved = detectron.replace(own_move, '[x["image"] for x in batched_inputs]').replace(
        f"{labels}.to(self.device)", labels
    )
    assert [(f.id, f.severity) for f in audit_text(unmoved)] == [("tensors_on_different_devices", Severity.ERROR)]


def test_a_cpu_device_beside_a_gpu_one_is_deliberate() -> None:
    export = """
def export(path="model.onnx"):
    device = torch.device("cpu")
    model.to(device).eval()
    torch.onnx.export(model, torch.randn(1, 4, device=device), path)
"""
    assert ids(TRAIN + export) == []  # TRAIN picks the GPU; the export runs on the CPU on purpose
    cpu_only = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')
    assert (4, "workload_left_on_cpu", "warning") in ids(cpu_only + export)


def test_gpu_code_elsewhere_in_a_file_does_not_condemn_a_cpu_function() -> None:
    code = """
import torch
from torch import nn
def gpu_part():
    return torch.ones(2, device="cuda")
def cpu_test():
    layer = nn.Linear(2, 2)
    for _ in range(3):
        layer(torch.ones(2)).sum().backward()
"""
    assert ids(code) == []


def test_frameworks_that_place_for_you_silence_placement_rules() -> None:
    result = audit_paths([str(DATA / "ok_lightning.py")])
    assert result.findings == []
    assert "lightning" in result.files[0].notes[0]


def test_a_file_without_torch_is_not_audited() -> None:
    assert audit_text("import numpy as np\nx = np.zeros(3)\nprint(x.mean())\n") == []


def test_cuda_visible_devices_before_any_cuda_call_is_fine() -> None:
    code = """
import os
import torch
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
print(torch.cuda.is_available())
"""
    assert ids(code) == []


# -- reports ---------------------------------------------------------------------------------------------
def test_json_schema() -> None:
    result = audit_paths([str(DATA / "broken_syncs.py"), str(DATA / "broken_notebook.ipynb")])
    data = json.loads(render_json(result))
    assert data["schema"] == SCHEMA == "gpuassist.audit/1"
    assert [f["path"] for f in data["files"]] == [str(DATA / "broken_syncs.py"), str(DATA / "broken_notebook.ipynb")]
    assert data["files"][1]["kind"] == "notebook" and data["files"][1]["skipped_cells"][0]["cell"] == 5
    assert data["files"][0]["audited"] is True
    assert data["summary"] == {"error": 1, "warning": 7, "info": 2}
    for f in data["findings"]:
        assert set(f) == {
            "id",
            "severity",
            "title",
            "path",
            "cell",
            "line",
            "col",
            "end_line",
            "location",
            "message",
            "code",
            "fix",
        }
        assert set(f["fix"]) == {"summary", "location", "line", "before", "after"}
        assert f["location"].startswith(f["path"]) and f["line"] <= f["end_line"]
        assert f["title"] == catalogue()[f["id"]].title


def test_findings_convert_to_report_findings() -> None:
    result = audit_paths([str(DATA / "broken_batches_on_cpu.py")])
    report = result.to_findings()
    assert report[0].severity is Severity.ERROR  # most severe first
    assert report[0].step == "script"
    evidence = {e.fact: e.value for e in report[0].evidence}
    assert evidence["audit.location"].endswith("broken_batches_on_cpu.py:20:22")
    assert "pred = model(X)" in evidence["audit.code"]
    assert "X, y = X.to(device), y.to(device)" in report[0].fix


def test_text_lines_are_linter_lines_with_the_fix_below() -> None:
    text = render_text(audit_paths([str(DATA / "broken_hf_style.py")]))
    lines = text.splitlines()
    m = LINE.match(lines[0])
    assert m and m["id"] == "tensors_on_different_devices" and (m["line"], m["col"]) == ("21", "31")
    assert lines[1].startswith("    fix: move each batch")
    assert "+         batch = {k: v.to(device) for k, v in batch.items()}" in text
    assert lines[-1] == "Found 1 problem in 1 file: 1 error."


# -- reading input ---------------------------------------------------------------------------------------
def test_unreadable_inputs_get_one_clear_message(tmp_path: Path) -> None:
    cases = {
        "syntax.py": (b"import torch\n\nx = (1,\n", "syntax error at line 3"),
        "binary.py": (bytes(range(256)), "binary file"),
        "latin.py": ("x = 'caf\u00e9'\n".encode("latin-1"), "not utf-8 text"),
        "bad.ipynb": (b'{"cells": [', "invalid JSON at line 1"),
        "list.ipynb": (b"[1, 2]", 'no "cells" list'),
        "r.ipynb": (json.dumps({"cells": [], "metadata": {"kernelspec": {"language": "R"}}}).encode(), "R notebook"),
    }
    for name, (data, reason) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(AuditInputError) as exc:
            audit_paths([str(tmp_path / name)])
        assert str(exc.value).startswith(f"cannot audit {tmp_path / name}: ") and reason in str(exc.value)
        assert "\n" not in str(exc.value)
    with pytest.raises(AuditInputError, match="no such file"):
        audit_paths([str(tmp_path / "missing.py")])
    with pytest.raises(AuditInputError, match="it is a directory"):
        audit_paths([str(tmp_path)])


def test_code_nested_too_deeply_to_follow_is_reported_not_audited(tmp_path: Path) -> None:
    path = tmp_path / "generated.py"
    path.write_text("import torch\nx = torch.ones(1)\ny = " + " + ".join(["x"] * 1500) + "\n")
    result = audit_paths([str(path)])
    assert result.findings == [] and result.files[0].audited is False
    assert render_text(result).splitlines()[-1] == "No problems found in 1 file (1 not audited)."


def test_declared_encodings_bom_and_empty_files_are_read(tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(
        "# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\u00e9'\n".encode("latin-1")
    )
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfimport torch\n")
    (tmp_path / "empty.py").write_bytes(b"")
    result = audit_paths([str(tmp_path / n) for n in ("latin.py", "bom.py", "empty.py")])
    assert result.findings == [] and len(result.files) == 3


@pytest.mark.slow
def test_the_audited_code_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    script = tmp_path / "train.py"
    script.write_text(
        f"import torch\nopen({str(marker)!r}, 'w').write('ran')\n"
        f"if __name__ == '__main__':\n    open({str(marker)!r}, 'w').write('ran')\n"
    )
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "source": [
                            "import torch\n",
                            f"open({str(marker)!r}, 'w').write('ran')\n",
                            f"!touch {marker}\n",
                        ],
                    }
                ]
            }
        )
    )
    assert audit_paths([str(script), str(notebook)]).findings == []
    p = subprocess.run(
        [sys.executable, "-m", "gpuassist.cli", "audit", str(script), str(notebook)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert not marker.exists()


# -- the command line ------------------------------------------------------------------------------------
def test_cli_exit_status_and_formats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["audit", str(DATA / "ok_ddp.py")]) == 0
    assert capsys.readouterr().out == "No problems found in 1 file.\n"
    assert main(["audit", str(DATA / "ok_tutorial_loop.py"), str(DATA / "broken_syncs.py")]) == 0  # warnings only
    out = capsys.readouterr().out.splitlines()
    finding_lines = [line for line in out if not line.startswith((" ", "Found", "No problems"))]
    assert finding_lines and all(LINE.match(line) for line in finding_lines)
    assert main(["audit", "--format", "json", str(DATA / "broken_env.py"), str(DATA / "broken_hf_style.py")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == SCHEMA and data["summary"]["error"] == 1
    target = tmp_path / "audit.json"
    assert main(["audit", "--format", "json", "--output", str(target), str(DATA / "broken_notebook.ipynb")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "written to" in captured.err
    assert json.loads(target.read_text())["findings"][0]["cell"] == 4


@pytest.mark.slow
@pytest.mark.parametrize(
    "content", [b"def f(:\n", b"\x00\x01\x02", b"\xff\xfe\xfa not utf-8", "missing", "dir", "notebook"]
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path: Path, content: bytes | str) -> None:
    path = tmp_path / ("input.ipynb" if content == "notebook" else "input.py")
    if content == "dir":
        path.mkdir()
    elif content == "notebook":
        path.write_text('{"cells": [}')
    elif isinstance(content, bytes):
        path.write_bytes(content)
    p = subprocess.run(
        [sys.executable, "-m", "gpuassist.cli", "audit", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 2 and p.stdout == ""
    assert len(lines) == 1 and lines[0].startswith(f"gpuassist: cannot audit {path}: "), p.stderr
    assert "Traceback" not in p.stderr


def test_cli_syntax_error_names_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("import torch\n\nfor x in range(3)\n    print(x)\n")
    assert main(["audit", str(path)]) == 2
    assert capsys.readouterr().err == f"gpuassist: cannot audit {path}: syntax error at line 3: expected ':'\n"
