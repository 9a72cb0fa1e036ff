"""GPU selection written by the program itself (issue #14, round 5): CUDA_VISIBLE_DEVICES set from the script's own
argument, an index beyond the GPUs present, Lightning's requested-versus-present check. Synthetic texts written in
the layouts the programs print (see gpuassist/ingest/program_devices.py); each mechanism has a counter-example."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.program_devices import argument_value, program_setting
from gpuassist.ingest.text import clean_lines


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


SCRIPT_SETS_FROM_ARG = """\
parser.add_argument('--gpu_ids', default='5', type=str, help='which GPUs to use')
args = parser.parse_args()
os.environ['CUDA_VISIBLE_DEVICES'] = args.gpu_ids
Traceback (most recent call last):
  File "main.py", line 88, in <module>
    model = model.cuda()
RuntimeError: No CUDA GPUs are available
"""


def test_setting_from_the_programs_argument_is_resolved_through_its_default() -> None:
    lines = clean_lines(SCRIPT_SETS_FROM_ARG)
    assert program_setting(lines) == (3, "os.environ['CUDA_VISIBLE_DEVICES'] = args.gpu_ids", "gpu_ids")
    assert argument_value(lines, "gpu_ids") == (1, lines[0], "5")
    # The command line shown wins over the default; - and _ are the same argument to argparse.
    given = clean_lines(SCRIPT_SETS_FROM_ARG + "$ python main.py --gpu-ids 0,1\n")
    assert argument_value(given, "gpu_ids") is not None
    assert argument_value(given, "gpu_ids")[2] == "0,1"  # type: ignore[index]


def test_setting_from_the_programs_argument_leads_the_no_gpu_readings() -> None:
    report = load_text(SCRIPT_SETS_FROM_ARG)
    assert [f.id for f in report.findings][:1] == ["cuda_visible_devices_hides_gpus"]
    assert report.facts.value("cuda.visible_devices") == "5"


def test_argument_index_beyond_the_gpus_shown_is_a_verdict() -> None:
    text = SCRIPT_SETS_FROM_ARG + (
        "$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
    )
    first = load_text(text).findings[0]
    assert first.id == "cuda_visible_devices_hides_gpus"
    assert first.severity is Severity.ERROR


def test_a_literal_setting_or_no_failure_is_not_read_here() -> None:
    working = SCRIPT_SETS_FROM_ARG.replace("RuntimeError: No CUDA GPUs are available", "epoch 1 loss 0.31")
    assert "cuda_visible_devices_hides_gpus" not in _ids(working)
    literal = clean_lines("os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n")
    assert program_setting(literal) is None


ORDINAL_BEYOND = """\
$ torchrun --nproc_per_node=4 train.py
    torch.cuda.set_device(local_rank)
RuntimeError: CUDA error: invalid device ordinal
>>> torch.cuda.device_count()
2
|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:07:00.0 Off |                    0 |
|   1  NVIDIA A100-SXM4-40GB          On  | 00000000:0F:00.0 Off |                    0 |
"""


def test_more_processes_than_gpus_is_read_from_the_gpu_count() -> None:
    # The count from torch's device_count() alone, and from nvidia-smi's rows alone.
    by_count = "\n".join(line for line in ORDINAL_BEYOND.splitlines() if not line.startswith("|"))
    by_rows = "\n".join(line for line in ORDINAL_BEYOND.splitlines() if "device_count" not in line and line != "2")
    for text in (by_count, by_rows):
        first = load_text(text).findings[0]
        assert (first.id, first.severity) == ("cuda_visible_devices_hides_gpus", Severity.ERROR)


def test_an_index_within_the_gpus_is_no_verdict() -> None:
    within = ORDINAL_BEYOND.replace("--nproc_per_node=4", "--nproc_per_node=2")
    assert not any(
        f.id == "cuda_visible_devices_hides_gpus" and f.severity is Severity.ERROR for f in load_text(within).findings
    )


LIGHTNING_ONE_GPU = """\
  File "/opt/conda/lib/python3.10/site-packages/lightning/fabric/utilities/device_parser.py", line 203, in _sanitize
lightning.fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [1]
 But your machine only has: [0]
"""


def test_lightning_request_beyond_the_present_gpus_is_a_verdict() -> None:
    first = load_text(LIGHTNING_ONE_GPU).findings[0]
    assert first.id == "cuda_visible_devices_hides_gpus"
    assert first.severity is Severity.ERROR


def test_lightning_with_no_gpu_at_all_is_not_a_selection_verdict() -> None:
    report = load_text(LIGHTNING_ONE_GPU.replace("only has: [0]", "only has: []"))
    assert not any(f.id == "cuda_visible_devices_hides_gpus" and f.severity is Severity.ERROR for f in report.findings)
    assert report.findings  # the message's guesses (a CPU build first)


# ------------------------------------------------------------- a script's variable in the value, resolved or dropped

SCRIPT_VARIABLE = """\
#!/bin/bash
GPU_ID=3
CUDA_VISIBLE_DEVICES=${GPU_ID} python train.py --cfg configs/a.yaml
RuntimeError: No CUDA GPUs are available
$ nvidia-smi -L
GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)
"""


def test_a_script_variable_is_read_as_its_value() -> None:
    report = load_text(SCRIPT_VARIABLE)
    assert report.facts.value("cuda.visible_devices") == "3"
    assert (report.findings[0].id, report.findings[0].severity) == ("cuda_visible_devices_hides_gpus", Severity.ERROR)
    default = "export CUDA_VISIBLE_DEVICES=${GPUS:-5}\n" + SCRIPT_VARIABLE.split("\n", 3)[3]
    assert load_text(default).facts.value("cuda.visible_devices") == "5"


def test_a_variable_naming_an_existing_gpu_or_unresolved_is_no_verdict() -> None:
    for text in (SCRIPT_VARIABLE.replace("GPU_ID=3", "GPU_ID=0"), SCRIPT_VARIABLE.replace("${GPU_ID}", "$1")):
        assert not any(f.severity is Severity.ERROR for f in load_text(text).findings)
    assert not load_text(SCRIPT_VARIABLE.replace("${GPU_ID}", "$1")).facts.known("cuda.visible_devices")


def test_a_setting_reported_as_what_made_it_work_is_the_verdict() -> None:
    text = (
        "    torch.cuda.set_device(torch.device('cuda:0'))\n"
        "RuntimeError: No CUDA GPUs are available\n"
        "Adding os.environ['CUDA_VISIBLE_DEVICES'] = '0' at the top of train.py worked for me\n"
    )
    assert _ids(text)[:1] == ["cuda_visible_devices_hides_gpus"]
    # Offered, not reported as working: the user's own '0' hides nothing, so it is no reading.
    offered = text.replace(" worked for me", ", as the README says")
    assert "cuda_visible_devices_hides_gpus" not in _ids(offered)


# ------------------------------------------------------------------- an index beyond the GPUs the user says they have

PRINTED_INDEX = """\
Loading the segmenter to cuda:2
Traceback (most recent call last):
  File "app.py", line 40, in <module>
    model.to(device=self.device)
RuntimeError: CUDA error: invalid device ordinal
I have only one GPU (RTX 3080).
"""


def test_printed_index_beyond_the_stated_gpu_count_is_a_verdict() -> None:
    first = load_text(PRINTED_INDEX).findings[0]
    assert (first.id, first.severity) == ("cuda_visible_devices_hides_gpus", Severity.ERROR)


def test_index_within_the_stated_count_or_no_count_is_only_the_messages_guess() -> None:
    for text in (
        PRINTED_INDEX.replace("I have only one GPU (RTX 3080).", "We have four GPUs in this server."),
        PRINTED_INDEX.replace("I have only one GPU (RTX 3080).\n", ""),
    ):
        findings = load_text(text).findings
        assert findings[0].id == "cuda_visible_devices_hides_gpus"
        assert findings[0].severity is not Severity.ERROR


def test_accelerate_config_process_count_beyond_the_gpus() -> None:
    text = (
        "- `Accelerate` default config:\n\t- distributed_type: MULTI_GPU\n\t- num_processes: 2\n\t- gpu_ids: all\n"
        "RuntimeError: CUDA error: invalid device ordinal\nI only have one GPU.\n"
    )
    first = load_text(text).findings[0]
    assert (first.id, first.severity) == ("cuda_visible_devices_hides_gpus", Severity.ERROR)
    assert load_text(text.replace("num_processes: 2", "num_processes: 1")).findings[0].severity is not Severity.ERROR


def test_an_argument_that_keeps_gpu_0_is_not_read_as_hiding() -> None:
    text = SCRIPT_SETS_FROM_ARG.replace("default='5'", "default='0'")
    assert "cuda_visible_devices_hides_gpus" not in _ids(text)
    assert program_setting(clean_lines(text)) is not None


def test_literal_index_beyond_the_stated_count_is_a_verdict() -> None:
    text = (
        "train.py starts with os.environ['CUDA_VISIBLE_DEVICES'] = '2' and I have only one GPU.\n"
        "RuntimeError: No CUDA GPUs are available\n"
    )
    first = load_text(text).findings[0]
    assert (first.id, first.severity) == ("cuda_visible_devices_hides_gpus", Severity.ERROR)
    within = text.replace("only one GPU", "only 4 GPUs").replace("I have", "we have")
    assert load_text(within).findings[0].severity is not Severity.ERROR
