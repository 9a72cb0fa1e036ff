"""How a working GPU is (not) used, read from pasted texts (gpuassist/ingest/usage_words.py and the catalogue's
library messages): each mechanism on a synthetic text in the format the tool prints, with a counter-example that
must not give the same verdict."""

from __future__ import annotations

from gpuassist.facts import Facts
from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.cuda_working import cuda_shown_working
from gpuassist.ingest.usage_words import visible_devices_setting
from gpuassist.report.model import Report
from gpuassist.rules.visibility import scheduler_no_gpu_allocated


def _claimed(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is not Severity.INFO]


def _first(report: Report) -> str | None:
    return report.findings[0].id if report.findings else None


# ------------------------------------------------------------------------------------------- the GPU waits for data

MMCV_LOG = (
    "Training on one RTX 3090 is much slower than expected, torch 2.1.0+cu121.\n"
    "2024-03-02 10:00:00,000 - mmdet - INFO - Epoch [1][50/3000]\tlr: 2.000e-02, eta: 9:10:00, "
    "time: {t1}, data_time: {d1}, memory: 5200, loss_cls: 1.1021, loss: 1.5012\n"
    "2024-03-02 10:01:00,000 - mmdet - INFO - Epoch [1][100/3000]\tlr: 2.000e-02, eta: 9:08:00, "
    "time: {t2}, data_time: {d2}, memory: 5200, loss_cls: 0.9021, loss: 1.3012\n"
)
DETECTRON2_LOG = (
    "[03/02 10:00:00 d2.utils.events]:  eta: 1 day, 2:00:00  iter: 19  total_loss: 2.1  time: {t}  "
    "data_time: {d}  lr: 0.0002  max_mem: 3100M\n"
)


def test_a_training_log_whose_steps_are_mostly_data_wait_is_starvation() -> None:
    report = load_text(MMCV_LOG.format(t1="1.200", d1="0.950", t2="1.150", d2="0.900"))
    assert _first(report) == "dataloader_starvation"
    assert "data_time: 0.950" in report.findings[0].evidence[0].value
    d2 = load_text("Slow training on the GPU (torch 2.0 + CUDA 11.8)\n" + DETECTRON2_LOG.format(t="0.8120", d="0.6511"))
    assert _first(d2) == "dataloader_starvation"


def test_a_training_log_with_little_data_wait_is_not_starvation() -> None:
    report = load_text(MMCV_LOG.format(t1="1.200", d1="0.012", t2="1.150", d2="0.010"))
    assert "dataloader_starvation" not in _claimed(report)
    # One slow first step (workers starting up) among fast ones is not a starving loader.
    mixed = load_text(
        MMCV_LOG.format(t1="3.200", d1="2.950", t2="1.150", d2="0.010")
        + MMCV_LOG.format(t1="1.100", d1="0.011", t2="1.120", d2="0.012").split("\n", 1)[1]
    )
    assert "dataloader_starvation" not in _claimed(mixed)


def test_the_gpu_said_to_idle_waiting_for_data_is_starvation() -> None:
    for text in (
        "Profiling shows the GPU is idle 80% of the time, waiting for data. DataLoader num_workers=2.",
        "My GPUs are starving: the data loader can't keep up (num_workers=0), torch 2.3 cu121.",
        "GPU utilization fluctuates between 0% and 100% during training; my DataLoader uses num_workers=0.",
    ):
        assert _first(load_text(text)) == "dataloader_starvation", text


def test_low_or_unsteady_utilisation_with_the_data_side_said_to_be_slow_is_starvation() -> None:
    for text in (
        "The GPU usage stays very low; the data loader seems to be the bottleneck of training.",
        "With the torch profiler I found that 65% of training time is spent in the DataLoader (one A10).",
        "The utilization of the GPU is low (~30%) and the IO speed is quite slow, torch 2.1 cu121.",
        "GPU-Util is not stable, 0% most of the time, waiting for the next batch; torch 2.0 cu118.",
        "训练时GPU利用率很低，应该是卡在io上面",
    ):
        assert _first(load_text(text)) == "dataloader_starvation", text


def test_utilisation_or_a_slow_loader_alone_is_not_starvation() -> None:
    for text in (
        "The GPU-Util is low and fluctuating. Training with torch 1.13 cu117.",  # nothing about the data
        "The dataloader is slow on network storage, but the GPU utilization is 98% anyway.",
        "With the torch profiler I found that 5% of training time is spent in the DataLoader (one A10).",
    ):
        assert "dataloader_starvation" not in _claimed(load_text(text)), text


def test_an_idle_gpu_for_another_reason_is_not_starvation() -> None:
    for text in (
        "My GPU is idle while the model downloads; torch.cuda.is_available() is True.",  # no data side named
        "GPU utilization is 0%, the data loader is fine, model.to(device) with device='cpu' in my config.",
    ):
        assert "dataloader_starvation" not in _claimed(load_text(text)), text


LIGHTNING_PROFILE = (
    "Training on an RTX 3090 (torch 2.2.0+cu121, pytorch lightning) is slow.\n"
    "| Action                                     | Mean duration (s) | Num calls | Total time (s) | Percentage % |\n"
    "| run_training_epoch                         | 320.1             | 1         | 320.1          | 96.9         |\n"
    "| [_TrainingEpochLoop].train_dataloader_next | {mean}            | 500       | {total}        | {share}      |\n"
    "GPU utilization is low, DataLoader num_workers=8\n"
)
TORCH_PROFILE = (
    "torch.profiler on cuda:0 (torch 2.2.0+cu121)\n"
    "                                   Name    Self CPU %      Self CPU   CPU total %     CPU total\n"
    "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__  {share}%  4.120s  {share}%  4.120s\n"
)


def test_a_profiler_that_measured_most_time_fetching_batches_is_starvation() -> None:
    report = load_text(LIGHTNING_PROFILE.format(mean="0.41", total="205.1", share="62.1"))
    assert _first(report) == "dataloader_starvation"
    assert "train_dataloader_next" in report.findings[0].evidence[0].value
    assert _first(load_text(TORCH_PROFILE.format(share="48.20"))) == "dataloader_starvation"


def test_a_profiler_that_measured_fetching_as_cheap_overrides_the_words() -> None:
    # "GPU utilization is low" with the loader named would be read as starvation; the measurement says otherwise.
    report = load_text(LIGHTNING_PROFILE.format(mean="0.0005", total="0.25", share="0.1"))
    assert "dataloader_starvation" not in _claimed(report)
    assert "dataloader_starvation" not in _claimed(load_text(TORCH_PROFILE.format(share="2.10")))


# --------------------------------------------------------------------------------- the work left on the CPU


def test_a_library_on_the_cpu_while_cuda_works_is_work_left_on_cpu() -> None:
    for text in (
        "INFO:sentence_transformers.SentenceTransformer:Use pytorch device_name: cpu\n"
        "but torch.cuda.is_available() returns True on this machine",
        "Device set to use cpu\n>>> import torch\n>>> torch.cuda.is_available()\nTrue\n",
        "Process rank: 0, device: cpu, n_gpu: 0\nGPU available: True (cuda), used: True\n",
    ):
        report = load_text(text)
        assert _first(report) == "workload_left_on_cpu", text
        assert report.findings[0].severity is Severity.WARNING


def test_a_library_on_the_cpu_without_cuda_shown_working_is_not_blamed_on_the_code() -> None:
    # CUDA broken or not shown: the library fell back to the CPU for that reason; the device line decides nothing.
    for text in (
        "Device set to use cpu\n>>> torch.cuda.is_available()\nFalse\n",
        "INFO: Use pytorch device_name: cpu\nLoad pretrained SentenceTransformer: all-MiniLM-L6-v2",
        "/venv/lib/python3.10/site-packages/whisper/transcribe.py:115: UserWarning: FP16 is not supported on CPU; "
        "using FP32 instead",
    ):
        assert "workload_left_on_cpu" not in _claimed(load_text(text)), text


def test_the_cpu_asked_for_by_a_flag_or_argument_is_work_left_on_cpu() -> None:
    comfy = (
        "$ python main.py --cpu\nTotal VRAM 31963 MB, total RAM 31963 MB\npytorch version: 2.3.0+cu121\n"
        "Set vram state to: DISABLED\nDevice: cpu\n"
    )
    assert _first(load_text(comfy + "It does not use my RTX 3060.\n")) == "workload_left_on_cpu"
    code = (
        'trainer = pl.Trainer(accelerator="cpu", max_epochs=10)\n'
        "the GPU is not used; torch.cuda.is_available() is True\n"
    )
    assert _first(load_text(code)) == "workload_left_on_cpu"


def test_a_cpu_flag_as_the_workaround_for_broken_cuda_is_not_the_cause() -> None:
    for text in (
        "set COMMANDLINE_ARGS=--skip-torch-cuda-test --use-cpu all\nRuntimeError: Torch is not able to use GPU; add "
        "--skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check\n",
        # The CPU start-up lines without a flag: CUDA may just as well be broken.
        "Total VRAM 31963 MB, total RAM 31963 MB\npytorch version: 2.3.0+cu121\nSet vram state to: DISABLED\n"
        "Device: cpu\nIt does not use my RTX 3060.\n",
    ):
        assert "workload_left_on_cpu" not in _claimed(load_text(text)), text


def test_the_libraries_own_warnings_that_cuda_is_available_but_unused_are_verdicts() -> None:
    for text in (
        "/venv/lib/python3.11/site-packages/whisper/transcribe.py:126: UserWarning: Performing inference on CPU "
        "when CUDA is available",
        "/venv/lib/python3.11/site-packages/lightning/pytorch/trainer/setup.py:177: GPU available but not used. "
        "You can set it by doing `Trainer(accelerator='gpu')`.",
    ):
        report = load_text(text)
        assert _first(report) == "workload_left_on_cpu", text
        assert report.findings[0].severity is Severity.ERROR


def test_cuda_shown_working_reads_the_answers_not_the_questions() -> None:
    assert cuda_shown_working([">>> torch.cuda.is_available()", "True"])
    assert cuda_shown_working(["torch.cuda.device_count() returns 2"])
    assert not cuda_shown_working([">>> torch.cuda.is_available()", "False"])
    assert not cuda_shown_working(["if torch.cuda.is_available():", "    model.cuda()"])


# ------------------------------------------------------------------- memory kept by a program that has stopped

SMI_ROW = (
    "|   1  NVIDIA GeForce RTX 3090    Off  | 00000000:41:00.0 Off |                  N/A |\n"
    "| 30%   {temp}C    {perf}    22W / 350W |  {used}MiB / 24268MiB |     {util}%      Default |\n"
)


def test_an_idle_gpu_holding_memory_after_the_program_stopped_is_held_by_others() -> None:
    text = "My training was interrupted when the ssh connection dropped.\n" + SMI_ROW.format(
        temp=29, perf="P8", used=11000, util=0
    )
    report = load_text(text)
    assert _first(report) == "gpu_memory_held_by_others"
    assert "11000MiB" in report.findings[0].evidence[0].value


def test_memory_of_a_busy_gpu_or_a_small_share_or_nothing_stopped_is_not_held_by_others() -> None:
    busy = "My training was interrupted.\n" + SMI_ROW.format(temp=66, perf="P2", used=11000, util=97)
    small = "My training was interrupted.\n" + SMI_ROW.format(temp=29, perf="P8", used=300, util=0)
    running = "Why does nvidia-smi list no process? My job runs in a container.\n" + SMI_ROW.format(
        temp=29, perf="P8", used=11000, util=0
    )
    for text in (busy, small, running):
        assert "gpu_memory_held_by_others" not in _claimed(load_text(text)), text


# ------------------------------------------------------------------------ the scheduler and a CPU build of torch


def test_a_cpu_build_comes_before_a_job_without_a_gpu_request() -> None:
    report = load_text(
        "#PBS -l select=1:ncpus=8:mem=32gb\n#PBS -q gpu\npython train.py\nAssertionError: Torch not compiled with CUDA "
        "enabled\n"
    )
    assert _first(report) == "cpu_only_build"
    job = load_text("#SBATCH --nodes=1\npython train.py\nRuntimeError: No CUDA GPUs are available\n")
    assert _first(job) == "scheduler_no_gpu_allocated"


def test_the_scheduler_rule_does_not_blame_the_allocation_for_a_cpu_build() -> None:
    job = {"scheduler.kind": "slurm", "scheduler.job_id": "$SLURM_JOB_ID", "cuda.available": False}
    assert scheduler_no_gpu_allocated(Facts({**job, "torch.cuda_build": None})) is None
    facts = Facts({**job, "torch.cuda_build": "12.1"})
    found = scheduler_no_gpu_allocated(facts)
    assert found is not None and found.id == "scheduler_no_gpu_allocated"


# ---------------------------------------------------------------- CUDA_VISIBLE_DEVICES set in any form


def test_every_form_of_setting_cuda_visible_devices_is_read() -> None:
    forms = {
        "$ CUDA_VISIBLE_DEVICES=3 python train.py": "3",
        "CUDA_VISIBLE_DEVICES='' torchrun --nproc_per_node 2 train.py": "",
        'os.environ["CUDA_VISIBLE_DEVICES"] = "1"': "1",
        "os.environ.setdefault('CUDA_VISIBLE_DEVICES', '0,1')": "0,1",
        "%env CUDA_VISIBLE_DEVICES=2": "2",
        "docker run --gpus all -e CUDA_VISIBLE_DEVICES=-1 img": "-1",
        "      - CUDA_VISIBLE_DEVICES=0": "0",
        '$env:CUDA_VISIBLE_DEVICES="1"': "1",
    }
    for line, value in forms.items():
        found = visible_devices_setting(["something first", line])
        assert found is not None and found[2] == value, line
    assert visible_devices_setting(["$ echo $CUDA_VISIBLE_DEVICES", "NoDevFiles"]) == (
        1,
        "$ echo $CUDA_VISIBLE_DEVICES",
        "NoDevFiles",
    )


def test_reading_or_comparing_cuda_visible_devices_is_not_setting_it() -> None:
    for line in (
        'if [ "$CUDA_VISIBLE_DEVICES" == "NoDevFiles" ]; then',
        'gpus = os.environ.get("CUDA_VISIBLE_DEVICES", "")',
        "if CUDA_VISIBLE_DEVICES==0:",
    ):
        assert visible_devices_setting([line]) is None, line


def test_a_setting_that_hides_every_gpu_while_cuda_sees_none_is_the_verdict() -> None:
    for text in (
        "$ CUDA_VISIBLE_DEVICES=-1 python train.py\nRuntimeError: No CUDA GPUs are available\n",
        'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = ""\nimport torch\nprint(torch.cuda.is_available())\nFalse\n',
    ):
        report = load_text(text)
        assert _first(report) == "cuda_visible_devices_hides_gpus", text
        assert report.findings[0].severity is Severity.ERROR
    job = load_text(
        "$ echo $CUDA_VISIBLE_DEVICES\nNoDevFiles\n"
        '$ python -c "import torch; print(torch.cuda.is_available())"\nFalse\n'
    )
    assert _first(job) == "scheduler_no_gpu_allocated"


def test_a_setting_naming_a_gpu_that_exists_or_cuda_working_is_not_blamed() -> None:
    healthy = "$ CUDA_VISIBLE_DEVICES=0 python -c 'import torch; print(torch.cuda.is_available())'\nTrue\n"
    assert "cuda_visible_devices_hides_gpus" not in _claimed(load_text(healthy))
    hidden_but_fine = "export CUDA_VISIBLE_DEVICES=-1   # the CPU tests\npytest tests/cpu -q\n12 passed\n"
    assert "cuda_visible_devices_hides_gpus" not in _claimed(load_text(hidden_but_fine))


def test_a_setting_read_from_a_command_meets_the_gpus_nvidia_smi_lists() -> None:
    # One GPU listed, index 1 asked for: the rule decides from the setting and the GPU count.
    text = (
        "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1b2c3d4e-0000-1111-2222-333344445555)\n"
        "$ CUDA_VISIBLE_DEVICES=1 python train.py\nRuntimeError: No CUDA GPUs are available\n"
    )
    report = load_text(text)
    assert _first(report) == "cuda_visible_devices_hides_gpus"
    assert report.findings[0].severity is Severity.ERROR


def test_nvidia_visible_devices_void_gives_a_container_no_gpu() -> None:
    text = (
        "docker run -e NVIDIA_VISIBLE_DEVICES=void myimage "
        "python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n"
    )
    assert _first(load_text(text)) == "docker_no_gpu_runtime"
    fine = "docker run --gpus all -e NVIDIA_VISIBLE_DEVICES=all myimage\n>>> torch.cuda.is_available()\nTrue\n"
    assert "docker_no_gpu_runtime" not in _claimed(load_text(fine))


# ------------------------------------------------------------------------------ compute mode, containers, WSL

SMI_MODE = (
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "|   0  Tesla V100-SXM2-16GB    On   | 00000000:00:1E.0 Off |                    0 |\n"
    "| N/A   34C    P0    41W / 300W |      0MiB / 16384MiB |      0%   {mode} |\n"
)


def test_a_gpu_in_compute_mode_prohibited_with_cuda_failing_is_the_verdict() -> None:
    report = load_text(SMI_MODE.format(mode="Prohibited") + ">>> torch.cuda.is_available()\nFalse\n")
    assert _first(report) == "compute_mode_exclusive_or_prohibited"
    assert report.findings[0].severity is Severity.ERROR
    q = load_text(
        "    Compute Mode                          : Prohibited\n"
        "RuntimeError: CUDA error: no CUDA-capable device is detected\n"
    )
    assert _first(q) == "compute_mode_exclusive_or_prohibited"


def test_a_gpu_in_default_compute_mode_is_not_blamed() -> None:
    report = load_text(SMI_MODE.format(mode="   Default") + ">>> torch.cuda.is_available()\nFalse\n")
    assert "compute_mode_exclusive_or_prohibited" not in _claimed(report)


def test_the_toolkits_cgroup_failure_is_a_container_without_gpu_access() -> None:
    text = (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container "
        "process caused: process_linux.go:459: container init caused: Running hook #0:: error running hook: exit status"
        " 1, stdout: , stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.\n"
    )
    assert _first(load_text(text)) == "docker_no_gpu_runtime"


def test_wsls_ldconfig_symlink_warning_is_not_a_broken_libcuda() -> None:
    text = "Setting up libc-bin ...\nldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n\n"
    assert "wsl_libcuda_problem" not in _claimed(load_text(text))
    broken = (
        "Ubuntu 22.04 under WSL2\nCould not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: "
        "cannot open shared object file: No such file or directory\n"
    )
    assert _first(load_text(broken)) == "wsl_libcuda_problem"


# ------------------------------------------------------------------ out of memory: this job or other processes

OOM_1X = (
    "RuntimeError: CUDA out of memory. Tried to allocate {want} (GPU 0; 10.76 GiB total capacity; "
    "{alloc} already allocated; {free} free; {reserved} reserved in total by PyTorch)"
)


def test_an_oom_with_nothing_held_by_this_process_and_nothing_free_is_memory_held_by_others() -> None:
    text = OOM_1X.format(want="20.00 MiB", alloc="0 bytes", free="18.56 MiB", reserved="0 bytes")
    assert _first(load_text(text)) == "gpu_memory_held_by_others"


def test_an_oom_the_job_causes_itself_stays_the_jobs() -> None:
    # Asking for more than the card has while it is free, or holding most of it: the job's own size.
    for text in (
        OOM_1X.format(want="12.00 GiB", alloc="0 bytes", free="10.50 GiB", reserved="0 bytes"),
        OOM_1X.format(want="2.00 GiB", alloc="8.10 GiB", free="1.50 GiB", reserved="8.90 GiB"),
    ):
        report = load_text(text)
        assert _first(report) == "cuda_out_of_memory", text
        assert "gpu_memory_held_by_others" not in _claimed(report)


# ------------------------------------------------------------------------------------ MIG without instances


def test_mig_enabled_without_instances_is_read() -> None:
    report = load_text("$ nvidia-smi mig -lgi\nNo GPU instances found: Not Found\n>>> torch.cuda.device_count()\n0\n")
    assert _first(report) == "mig_multiple_instances"
    assert "mig_multiple_instances" not in _claimed(load_text("No GPU instances found in the Kubernetes node list"))


# ------------------------------------------------------------------------------------ hosted notebook runtimes

COLAB_TRACE = (
    "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py in _lazy_init()\n"
    "--> 298         torch._C._cuda_init()\n"
    "RuntimeError: {message}\n"
    "(running the notebook in Google Colab)\n"
)


def test_a_colab_runtime_rules_out_the_local_machines_causes() -> None:
    report = load_text(COLAB_TRACE.format(message="No CUDA GPUs are available"))
    claimed = _claimed(report)
    assert set(claimed) <= {"cuda_visible_devices_hides_gpus", "no_nvidia_gpu"}, claimed
    assert "no_nvidia_gpu" in claimed
    gpu = next(f for f in report.findings if f.id == "no_nvidia_gpu")
    assert "Change runtime type" in gpu.fix
    driver = load_text(COLAB_TRACE.format(message="Found no NVIDIA driver on your system."))
    assert _first(driver) == "no_nvidia_gpu"


def test_the_same_message_on_the_users_own_machine_keeps_every_reading() -> None:
    text = COLAB_TRACE.format(message="No CUDA GPUs are available") + "It works on Colab but not locally in docker.\n"
    claimed = _claimed(load_text(text))
    assert "docker_no_gpu_runtime" in claimed, claimed


# ------------------------------------------------------------------ a container that had the GPU and lost it


def test_nvml_unknown_error_after_the_container_worked_is_lost_access() -> None:
    for said in (
        "It works when the container starts, but after a few hours nvidia-smi fails.",
        "Everything worked until I ran systemctl daemon-reload on the host.",
    ):
        report = load_text(f"root@1f2e3d:/# nvidia-smi\nFailed to initialize NVML: Unknown Error\n{said}\n")
        assert _first(report) == "container_gpu_access_lost", said
        assert report.findings[0].severity is Severity.ERROR


def test_nvml_unknown_error_alone_stays_a_possibility() -> None:
    report = load_text("root@1f2e3d:/# nvidia-smi\nFailed to initialize NVML: Unknown Error\n")
    assert _first(report) == "container_gpu_access_lost"
    assert report.findings[0].severity is Severity.WARNING


FUSER = (
    "$ sudo fuser -v /dev/nvidia*\n"
    "                     USER        PID ACCESS COMMAND\n"
    "/dev/nvidia0:        alice     23145 F...m {cmd}\n"
)


def test_the_processes_holding_the_device_files_beside_a_memory_problem_hold_the_memory() -> None:
    text = 'nvidia-smi shows 10985MiB / 11178MiB used but "No running processes found".\n' + FUSER.format(cmd="python")
    assert _first(load_text(text)) == "gpu_memory_held_by_others"
    zombie = (
        "alice    23145  0.0  0.0      0     0 ?        Z    10:01   0:00 [python] <defunct>\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
    )
    assert _first(load_text(zombie)) == "gpu_memory_held_by_others"


def test_a_listing_without_a_memory_problem_or_of_the_display_server_is_not_blamed() -> None:
    for text in (
        FUSER.format(cmd="python") + "training runs fine\n",
        FUSER.format(cmd="Xorg") + "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
    ):
        assert "gpu_memory_held_by_others" not in _claimed(load_text(text)), text


# ------------------------------------------------------- schedulers beyond Slurm/PBS: Kubernetes, Grid Engine

POD = (
    "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: trainer\n"
    "    image: pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n    resources:\n      limits:\n{limits}"
    "$ kubectl logs trainer\nRuntimeError: No CUDA GPUs are available\n"
)


def test_a_pod_without_a_gpu_limit_or_an_sge_job_without_a_gpu_request_got_no_gpu() -> None:
    assert _first(load_text(POD.format(limits="        memory: 16Gi\n"))) == "scheduler_no_gpu_allocated"
    sge = "#$ -N train\n#$ -l h_vmem=16G\npython train.py\nRuntimeError: No CUDA GPUs are available\n"
    assert _first(load_text(sge)) == "scheduler_no_gpu_allocated"


def test_a_pod_or_job_that_requested_a_gpu_is_not_blamed_on_the_request() -> None:
    for text in (
        POD.format(limits="        nvidia.com/gpu: 1\n"),
        "#$ -N train\n#$ -l gpu=1\npython train.py\nRuntimeError: No CUDA GPUs are available\n",
        POD.format(limits="        memory: 16Gi\n").replace("RuntimeError: No CUDA GPUs are available", "epoch 1 done"),
    ):
        report = load_text(text)
        assert not report.findings or report.findings[0].id != "scheduler_no_gpu_allocated", text


def test_memory_kept_after_stop_in_gpustat_rows_and_in_chinese() -> None:
    gpustat = (
        "After stopping the job it is gone from gpustat, but the memory is still taken:\n"
        "[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | {procs}\n"
    )
    assert _first(load_text(gpustat.format(procs="(null)"))) == "gpu_memory_held_by_others"
    assert "gpu_memory_held_by_others" not in _claimed(load_text(gpustat.format(procs="alice(10140M)")))
    assert _first(load_text("直接kill主进程之后，显卡不会释放显存")) == "gpu_memory_held_by_others"
    assert "gpu_memory_held_by_others" not in _claimed(load_text("训练时显存占用很高，batch_size=64"))


def test_cuda_working_for_the_user_but_not_the_program_points_at_the_programs_visible_devices() -> None:
    for text in (
        "torch.cuda.is_available() returns True, but running train.py gives RuntimeError: No CUDA GPUs are available",
        ">>> torch.cuda.is_available()\nTrue\n$ bash scripts/run.sh\nRuntimeError: No CUDA GPUs are available\n",
        "torch.cuda.is_available()是True，但是运行的时候报 RuntimeError: No CUDA GPUs are available",
    ):
        report = load_text(text)
        assert _claimed(report) == ["cuda_visible_devices_hides_gpus"], (text, _claimed(report))


def test_a_failing_check_or_a_container_keeps_the_other_readings() -> None:
    failing = ">>> torch.cuda.is_available()\nFalse\nRuntimeError: No CUDA GPUs are available\n"
    assert len(_claimed(load_text(failing))) > 1
    docker = (
        ">>> torch.cuda.is_available()\nTrue\n$ docker run myimage python train.py\n"
        "RuntimeError: No CUDA GPUs are available\n"
    )
    assert "docker_no_gpu_runtime" in _claimed(load_text(docker))


# ------------------------------------------------------- an error that shows CUDA working against install blames


def test_an_error_only_working_cuda_raises_outranks_an_install_verdict_from_other_facts() -> None:
    assert_text = (
        "torch 2.1.0+cu121\n| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
        "../aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
        "[5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered\n"
    )
    report = load_text(assert_text)
    assert _first(report) == "cuda_device_side_assert"
    assert _claimed(report) == []
    old_driver = next(f for f in report.findings if f.id == "driver_too_old")
    assert old_driver.explanation.startswith("Not claimed")
    cpu = load_text("torch 2.0.1+cpu\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert _first(cpu) == "cuda_illegal_memory_access" and _claimed(cpu) == []


def test_an_install_verdict_without_such_an_error_stands() -> None:
    report = load_text(
        "torch 2.1.0+cu121\n| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4   |\n"
    )
    assert _first(report) == "driver_too_old"
    assert report.findings[0].severity is Severity.ERROR
    nccl = "torch 2.0.1+cpu\ntorch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled"
    assert "cpu_only_build" in _claimed(load_text(nccl))


def test_a_state_that_broke_after_the_working_run_is_still_claimed() -> None:
    text = (
        "Training ran until CUDA out of memory; since then nvidia-smi says: "
        "Failed to initialize NVML: Driver/library version mismatch\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 10.76 GiB total capacity; "
        "8.10 GiB already allocated; 1.50 GiB free; 8.90 GiB reserved in total by PyTorch)\n"
    )
    assert "driver_library_mismatch" in _claimed(load_text(text))


# ------------------------------------------------------------------------------------- tensors on two devices


def test_every_device_mismatch_message_names_tensors_on_different_devices() -> None:
    for text in (
        "RuntimeError: Input type (CUDABFloat16Type) and weight type (CPUBFloat16Type) should be the same",
        "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same",
        "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
        "memory first.",
        "RuntimeError: Tensors must be CUDA and dense",
        "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'",
        "RuntimeError: Expected tensor to have CPU Backend, but got tensor with CUDA Backend (while checking "
        "arguments for batch_norm_cpu)",
    ):
        assert _first(load_text(text)) == "tensors_on_different_devices", text


def test_a_dtype_mismatch_on_one_device_is_not_a_device_mismatch() -> None:
    for text in (
        "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same",
        "RuntimeError: Input type (CPUFloatType) and weight type (CPUHalfType) should be the same",
    ):
        assert "tensors_on_different_devices" not in _claimed(load_text(text)), text


def test_moving_results_back_to_the_host_is_not_work_left_on_cpu() -> None:
    text = "torch.cuda.is_available() returns True but the GPU is not used?\npreds = model(x).to('cpu')\n"
    assert "workload_left_on_cpu" not in _claimed(load_text(text))
