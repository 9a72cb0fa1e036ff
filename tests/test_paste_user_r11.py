"""Round 11, user side: torch's NumPy bridge under an incompatible NumPy, a PyTorch source tree shadowing the
installed torch, and CUDA_VISIBLE_DEVICES set in code after CUDA started. Synthetic texts, each with a
counter-example that must not fire."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.torch_source_tree import torch_init_path
from gpuassist.ingest.visible_devices_order import set_after_init
from gpuassist.knowledge import messages


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


def _ids(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings}


# --- torch's NumPy bridge (torch/csrc/utils/tensor_numpy.cpp) ---

BRIDGE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/predict.py", line 12, in <module>\n'
    "    batch = torch.from_numpy(frames).float()\n"
    "RuntimeError: Numpy is not available\n"
)


def test_the_numpy_bridge_error_is_the_numpy_abi_clash() -> None:
    assert _first(BRIDGE) == "torch_import_error"
    fix = next(f for f in load_text(BRIDGE).findings if f.id == "torch_import_error").fix
    assert "numpy<2" in fix


def test_torch_warning_of_a_numpy_1x_build_under_numpy_2_names_the_clash() -> None:
    text = (
        "/opt/venv/lib/python3.12/site-packages/torch/_tensor.py:1150: UserWarning: Failed to initialize NumPy: "
        "_ARRAY_API not found (Triggered internally at ../torch/csrc/utils/tensor_numpy.cpp:84.)\n"
        "  arr = t.detach().numpy()\n"
    )
    assert _first(text) == "torch_import_error"
    warning = "UserWarning: Failed to initialize NumPy: module compiled against API version 0x10"
    assert messages.lookup(warning)


def test_numpy_simply_missing_is_a_warning_of_a_working_torch() -> None:
    # Counter-example: NumPy not installed only warns; the GPU run that follows works and nothing is blamed.
    text = (
        "UserWarning: Failed to initialize NumPy: No module named 'numpy' (Triggered internally at "
        "../torch/csrc/utils/tensor_numpy.cpp:84.)\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert "torch_import_error" not in _ids(text)


def test_other_words_about_numpy_availability_are_not_torchs_error() -> None:
    # Counter-example: a program's own log line that happens to mention NumPy.
    text = (
        "import torch\nINFO loader: numpy is not available for fast path, using lists\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert "torch_import_error" not in _ids(text)


def test_the_numpy_warning_beside_a_working_gpu_is_not_claimed() -> None:
    # Counter-example: the warning of a working torch (CUDA available, nothing failing) is no GPU problem.
    text = (
        "/usr/local/lib/python3.10/dist-packages/torch/_subclasses/functional_tensor.py:267: UserWarning: Failed to "
        "initialize NumPy: _ARRAY_API not found (Triggered internally at /opt/pytorch/torch/csrc/utils/"
        "tensor_numpy.cpp:84.)\n"
        "PyTorch: 2.5.0\nCUDA available: True\n"
    )
    found = [f for f in load_text(text).findings if f.id == "torch_import_error"]
    assert found and all(f.severity is Severity.INFO for f in found)


def test_numpy_missing_gets_the_install_fix() -> None:
    text = "UserWarning: Failed to initialize NumPy: No module named 'numpy'\n" + BRIDGE
    finding = load_text(text).findings[0]
    assert finding.id == "torch_import_error"
    assert "pip install numpy" in finding.fix


# --- a PyTorch source tree shadowing the installed torch (torch/__init__.py) ---

SHADOW = (
    "~/src/pytorch$ python -c 'import torch'\n"
    "Traceback (most recent call last):\n"
    '  File "<string>", line 1, in <module>\n'
    '  File "/home/dev/src/pytorch/torch/__init__.py", line 451, in <module>\n'
    "    raise ImportError(textwrap.dedent('''\n"
    "ImportError: Failed to load PyTorch C extensions:\n"
    "    It appears that PyTorch has loaded the `torch/_C` folder\n"
    "    of the PyTorch repository rather than the C extensions which\n"
)


def test_the_extension_missing_in_a_source_tree_is_a_shadowing_checkout() -> None:
    assert _first(SHADOW) == "stale_or_shadowed_torch"
    finding = load_text(SHADOW).findings[0]
    assert "/home/dev/src/pytorch/torch" in finding.explanation
    assert "different directory" in finding.fix


def test_a_relative_ipython_frame_reads_as_the_current_directory() -> None:
    text = (
        "In [1]: import torch\n"
        "ModuleNotFoundError                       Traceback (most recent call last)\n"
        "torch/__init__.py in <module>()\n"
        "---> 84 from torch._C import *\n"
        "ModuleNotFoundError: No module named 'torch._C'\n"
    )
    assert torch_init_path(text.splitlines()) is not None
    assert _first(text) == "stale_or_shadowed_torch"


def test_the_same_message_from_an_installed_torch_is_no_second_copy() -> None:
    # Counter-example: raised from site-packages, the installed torch itself fails to load for this interpreter.
    text = SHADOW.replace("/home/dev/src/pytorch/torch", "/home/dev/.venv/lib/python3.13t/site-packages/torch")
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_python_naming_the_source_trees_init_reads_the_class() -> None:
    text = "ImportError: cannot import name '_C' from 'torch' (/work/pytorch/torch/__init__.py)\n"
    assert _first(text) == "stale_or_shadowed_torch"


def test_the_users_own_torch_py_shadows_the_package() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/tests/torch.py", line 1, in <module>\n'
        "    import torch\n"
        '  File "/home/ana/tests/torch.py", line 2, in <module>\n'
        "    print(torch.cuda.is_available())\n"
        "AttributeError: partially initialized module 'torch' has no attribute 'cuda' (most likely due to a "
        "circular import)\n"
    )
    finding = load_text(text).findings[0]
    assert finding.id == "stale_or_shadowed_torch"
    assert "Rename /home/ana/tests/torch.py" in finding.fix
    hint = (
        "AttributeError: module 'torch' has no attribute 'cuda' (consider renaming 'C:\\Users\\ana\\torch.py' "
        "if it has the same name as a library you intended to import)\n"
    )
    assert _first(hint) == "stale_or_shadowed_torch"


def test_an_old_torch_lacking_an_attribute_is_no_shadow() -> None:
    # Counter-example: the installed torch is too old for the call; no file of the user's is named torch.py.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/run.py", line 9, in <module>\n'
        "    model = torch.compile(model)\n"
        "AttributeError: module 'torch' has no attribute 'compile'\n"
    )
    assert "stale_or_shadowed_torch" not in _ids(text)


# --- CUDA_VISIBLE_DEVICES set after CUDA started ---


def test_the_assignment_after_a_cuda_call_is_too_late() -> None:
    text = (
        "import torch, os\n"
        "print(torch.cuda.is_available())\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '2'\n"
        "model = Net().cuda()  # lands on the busy card\n"
    )
    found = set_after_init(text.splitlines())
    assert found is not None and found[2] == "order"
    assert _first(text) == "cuda_visible_devices_hides_gpus"


def test_the_user_saying_the_setting_is_ignored_reads_the_class() -> None:
    text = (
        'I put os.environ["CUDA_VISIBLE_DEVICES"] = "3" at the top of main.py but it still runs on GPU 0.\n'
        "Exporting the variable in the terminal before launching works fine.\n"
    )
    assert _first(text) == "cuda_visible_devices_hides_gpus"
    finding = load_text(text).findings[0]
    assert "reads CUDA_VISIBLE_DEVICES once" in finding.explanation
    assert "before `import torch`" in finding.fix


def test_an_assignment_after_a_bare_import_torch_is_no_evidence() -> None:
    # Counter-example: torch initialises CUDA lazily, so a setting after `import torch` alone still takes effect.
    text = "import torch\nimport os\nos.environ['CUDA_VISIBLE_DEVICES'] = '2'\nmodel = Net().cuda()\n"
    assert set_after_init(text.splitlines()) is None


def test_a_working_assignment_before_import_torch_claims_nothing() -> None:
    # Counter-example: the usual, correct way to pick a GPU, and no complaint about it.
    text = (
        "import os\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '1'\n"
        "import torch\n"
        "model = Net().cuda()\n"
        "Epoch 1/10 loss 0.731\n"
    )
    assert set_after_init(text.splitlines()) is None
    assert "cuda_visible_devices_hides_gpus" not in _ids(text)


def test_an_assignment_quoted_in_a_sentence_after_a_cuda_call_is_no_order() -> None:
    # Counter-example: the setting offered in prose below a traceback's CUDA call is not code run after it.
    text = (
        "    torch.cuda.set_device(0)\n"
        "RuntimeError: No CUDA GPUs are available\n"
        "Try adding os.environ['CUDA_VISIBLE_DEVICES'] = '0' at the top of train.py\n"
    )
    assert set_after_init(text.splitlines()) is None


def test_the_setting_told_in_words_with_no_effect_reads_the_class() -> None:
    text = "Setting CUDA_VISIBLE_DEVICES=2 inside finetune.py has no effect, the job lands on GPU 0 anyway.\n"
    assert _first(text) == "cuda_visible_devices_hides_gpus"


def test_the_setting_told_in_words_without_a_complaint_claims_nothing() -> None:
    # Counter-example: the usual advice, nothing said to fail.
    text = "I set CUDA_VISIBLE_DEVICES in my script to choose the card; training then runs on cuda:0.\n"
    assert "cuda_visible_devices_hides_gpus" not in _ids("import torch\n" + text)


def test_cuda_0_alone_is_the_renumbering_not_a_fault() -> None:
    # Counter-example: one visible GPU is cuda:0 in torch whatever its physical index; no shell contrast, no claim.
    text = (
        "import os\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '1'\n"
        "import torch\n"
        "# I want it to only use gpu 0 of the two, but torch still uses cuda:0 for everything?\n"
    )
    assert set_after_init(text.splitlines()) is None


def test_a_complaint_far_from_any_assignment_claims_nothing() -> None:
    # Counter-example: "doesn't work" about something else, the assignment far away and in the right order.
    text = "import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n" + "x = 1\n" * 10 + "The LR scheduler doesn't work\n"
    assert set_after_init(text.splitlines()) is None
