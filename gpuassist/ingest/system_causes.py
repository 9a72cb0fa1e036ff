"""Causes that system texts (kernel logs, lshw/lspci, Jetson reports) show, and what they explain.

A kernel log that says why the driver cannot reach the GPU (a legacy GPU or the open module refusing a GeForce, the
module and libraries at different versions, the GPU fallen off the bus) explains every later sign of it: nvidia-smi
failing to talk to the driver, "No NVIDIA GPU found", RmInitAdapter failing. Those lines' own readings (load the
module, install a driver, reseat the card) would send the user the wrong way, so they give way to the cause.
A GPU bound to nouveau with no nvidia-smi is a machine without NVIDIA's driver. On a Jetson, the user's words that
the GPU stays idle ("no activity on the GPU", "doesn't use CUDA", "检测不到显卡") are the Jetson form of "CUDA is
not available"; a torch built on the board is not the PyPI wheel. Program-class Xids that follow one GPU across
processes, LXD/Incus's GPU listing without the container toolkit and a pod given its GPU by the device plugin are
read here too.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import NVIDIA_GPU_MODEL
from gpuassist.ingest.errors import Match
from gpuassist.ingest.user_words import shows_cuda_build
from gpuassist.knowledge import catalogue

# Kernel-side causes the log names outright: the driver refusing the GPU, the kernel module and the libraries at
# different versions, a GPU fault (fallen off the bus, GSP). Each explains the generic signs of a driver that cannot
# reach the GPU.
KERNEL_EXPLAINERS = ("driver_does_not_support_gpu", "driver_library_mismatch", "gpu_xid_fault")
# What such a cause leads to; their fixes (load the module, install a driver, reset the GPU, install the container
# toolkit) do not apply once the log says why.
REFUSAL_CONSEQUENCES = ("no_nvidia_driver", "no_nvidia_gpu", "docker_no_gpu_runtime")
# The kernel-module reading stands down only where its line is a consequence (nvidia-smi failing to talk to the
# driver, CUDA finding no GPU or driver); a module problem of its own (Secure Boot's key, nouveau holding the GPU, a
# module built for another kernel) stays beside the other cause.
MODULE_CONSEQUENCE_LINE = re.compile(
    r"NVIDIA-SMI has failed because it couldn't communicate|No CUDA GPUs are available|Found no NVIDIA driver|"
    r"^\s*No devices were found",
    re.IGNORECASE,
)


def kernel_cause_explains(matches: list[Match]) -> list[Match]:
    """The log names a kernel-side cause: the consequences' readings give way to it (the adapter failing to start is
    the refusal's consequence too; a fault that is more than that, an Xid, stays)."""
    named = {m.id for m in matches if m.id in KERNEL_EXPLAINERS and m.specific}
    if not named:
        return matches
    return [
        m
        for m in matches
        if not (
            (m.id in REFUSAL_CONSEQUENCES and not m.specific)
            or (m.id == "nvidia_module_not_loaded" and MODULE_CONSEQUENCE_LINE.search(m.line))
            or (m.id == "gpu_xid_fault" and not m.specific and "driver_does_not_support_gpu" in named)
        )
    ]


# lshw's "configuration: driver=nouveau", lspci -k's "Kernel driver in use: nouveau", dmesg's "nouveau 0000:01:00.0:
# NVIDIA GA106".
NOUVEAU_BOUND = re.compile(
    r"\bdriver\s*=\s*nouveau\b|Kernel driver in use:\s*nouveau\b|"
    r"\bnouveau [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: NVIDIA\b",
    re.IGNORECASE,
)
NVIDIA_DEVICE = re.compile(r"\bvendor:\s*NVIDIA\b|NVIDIA Corporation|\b10de:|\bnouveau \S+: NVIDIA\b", re.IGNORECASE)
SMI_FAILED_TO_TALK = re.compile(r"NVIDIA-SMI has failed because it couldn't communicate\b", re.IGNORECASE)


def nouveau_bound_match(lines: list[str], matches: list[Match]) -> Match | None:
    """The NVIDIA GPU is driven by nouveau and nvidia-smi is missing (its reading is already a guess): no NVIDIA
    driver is installed. With nvidia-smi present but failing, the driver is installed and nouveau holds the GPU
    instead, which the kernel-module reading covers."""
    if not any(m.id == "no_nvidia_driver" and not NOUVEAU_BOUND.search(m.line) for m in matches):
        return None  # nvidia-smi missing (or another sign of no driver) is needed beside nouveau
    bound = next((i for i, line in enumerate(lines, start=1) if NOUVEAU_BOUND.search(line[:2000])), None)
    if bound is None or not any(NVIDIA_DEVICE.search(line[:2000]) for line in lines):
        return None
    if any(SMI_FAILED_TO_TALK.search(line[:2000]) for line in lines):
        return None
    return Match("no_nvidia_driver", bound, lines[bound - 1].strip()[:500], True, 0.8)


# The user's words that the GPU is not used, in English and Chinese: the GPU idle, no activity or load on it, a
# program that does not use CUDA, the GPU not detected. The GPU may be named as the user's card or its model ("doesn't
# see my 4090", "my RTX 3090 isn't detected", "can't find the graphics card").
_THE_GPU = (
    r"(?:(?:the\s+|my\s+|any\s+)?(?:gpu|cuda|graphics\s+card|video\s+card)\b|"
    r"(?:the\s+|my\s+)(?:nvidia\s+)?(?:(?:geforce\s+)?(?:rtx|gtx)\s?)?\d{3,4}(?:\s?ti|\s?super)?\b"
    # a bare number is the card only where the phrase ends there (punctuation, a function word, "card"): not a count
    # or a size ("doesn't use the 1024 workers", "the 2048 batch size", "6006 port"), nor a part of the card ("my
    # 4090's tensor cores")
    r"(?=\s*(?:[^\w\s']|$)|\s+(?:card|gpu|graphics|anymore|any\s+more|at\s+all|for|in|on|under|since|after|when|"
    r"while|with|but|and|or|even|though|although|because|either|now|yet|here|there|today|properly|correctly)\b)|"
    r"(?:the\s+|my\s+)?(?:nvidia\s+)?(?:geforce\s+)?(?:rtx|gtx)\s?\d{3,4}\w*)"
)
GPU_UNUSED = re.compile(
    r"\b(?:no|zero|0\s*%?)\s+(?:activity|usage|utili[sz]ation|load)\s+(?:on|of)\s+(?:the\s+)?(?:gpu|cuda)\b|"
    r"\bgpu\b[^.\n]{0,30}\b(?:is|appears|stays|remains|seems)\s+(?:to\s+be\s+)?(?:idle|unused|at\s+0\s*%)|"
    r"\b(?:does\s*n[o']t|doesn't|don'?t|do\s+not|does\s+not|not|never|isn't|is\s+not|aren't|are\s+not)\s+"
    r"(?:use|using|utili[sz]e|utili[sz]ing|detect|detecting|see|seeing|find|finding|recogni[sz]e|recogni[sz]ing)\s+"
    + _THE_GPU
    + r"|\b(?:can(?:no|')t|could\s*n[o']t|unable\s+to)\s+(?:detect|find|see|use|recogni[sz]e)\s+"
    + _THE_GPU
    + r"|\b(?:gpu|graphics\s+card|video\s+card|(?:rtx|gtx)\s?\d{3,4}\w*|my\s+\d{4}(?:\s?ti)?)\s+"
    r"(?:is\s+not|isn'?t|is|was\s+not|wasn'?t)?\s*(?:not\s+)?(?:detected|found|used|recogni[sz]ed)\b"
    r"(?<!\bis\sdetected)(?<!\bis\sfound)(?<!\bis\sused)(?<!\bis\srecognized)(?<!\bis\srecognised)|"
    # The work said to run on the CPU instead ("it still uses the CPU", "inference runs on CPU only").
    r"\b(?:still|only|always|just)\s+(?:uses?|using|runs?\s+on|running\s+on)\s+(?:the\s+)?cpu\b|"
    r"\b(?:runs?|running|works?|is\s+running)\s+on\s+(?:the\s+)?cpu\s+only\b|"
    r"(?:检测不到|识别不到|找不到|没有使用|没用到|用不了|无法使用|无法识别|不能使用)\s*(?:显卡|gpu|cuda)|"
    r"(?:显卡|gpu)\s*(?:没有|不|未)(?:被)?(?:使用|调用|识别|检测到|工作)",
    re.IGNORECASE,
)


def says_gpu_unused(lines: list[str]) -> bool:
    """The text says, in the user's words, that the GPU is not used or not found."""
    return any(GPU_UNUSED.search(line[:2000]) for line in lines[:5000])


# GPU stacks other than torch that a Jetson question can be about: their GPU use is not torch's wheel.
OTHER_GPU_STACK = re.compile(
    r"mediapipe|tensorrt|tensorflow|onnx ?runtime|onnxruntime|opencv|\bcv2\b|deepstream|gstreamer|\bjax\b|"
    r"paddle|ollama|llama\.cpp|mxnet|\bcupy\b|numba|\bvpi\b|darknet|\bncnn\b",
    re.IGNORECASE,
)


def names_another_gpu_stack(lines: list[str]) -> bool:
    """The text is about a GPU library other than torch (MediaPipe, TensorRT, OpenCV, ...)."""
    return any(OTHER_GPU_STACK.search(line[:2000]) for line in lines[:5000])


def jetson_source_build_expected(matches: list[Match], cuda_trouble: bool) -> list[Match]:
    """A torch built from source ("1.12.0a0+git67ece03") is how Jetson images and their users get a CUDA torch;
    on a Jetson (the caller's condition), the source-build guess needs the text to say CUDA does not work."""
    if cuda_trouble:
        return matches
    return [m for m in matches if not (m.id == "source_build_without_cuda" and not m.specific)]


# A traceback from code that moves work to the GPU or a CUDA error: CUDA failed at first use.
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
CUDA_USE = re.compile(
    r"""\.to\(\s*['"]cuda|\.cuda\(\)|device\s*=\s*['"]cuda|CUDA error|cudaError|CUDA_ERROR""", re.IGNORECASE
)


def cuda_failed_at_first_use(lines: list[str], matches: list[Match]) -> bool:
    """The text shows a traceback of code that uses CUDA (or a CUDA error), and no error that shows CUDA working
    (out of memory, a device-side assert): on a Jetson, the build failing on the board's GPU."""
    if any(m.id in catalogue() and catalogue()[m.id].gpu_in_use for m in matches):
        return False
    return any(TRACEBACK.search(line[:2000]) for line in lines[:5000]) and any(
        CUDA_USE.search(line[:2000]) for line in lines[:5000]
    )


# The pod got its GPU from the NVIDIA device plugin (which advertises GPUs only from a working driver on the node).
DEVICE_PLUGIN = re.compile(r"\bdevice[- ]plugin\b|\bnvidia\.com/gpu\b", re.IGNORECASE)


def device_plugin_node_has_driver(lines: list[str], matches: list[Match]) -> list[Match]:
    """In a pod given the GPU by the NVIDIA device plugin, a missing libcuda is the container runtime not mounting
    the node's driver (the plugin found the GPU through that driver): "no driver on this machine" is not offered."""
    if not any(m.id == "docker_no_gpu_runtime" for m in matches):
        return matches
    if not any(DEVICE_PLUGIN.search(line[:2000]) for line in lines[:5000]):
        return matches
    return [m for m in matches if not (m.id == "no_nvidia_driver" and not m.specific)]


def _field(line: str, name: str) -> str | None:
    """The value after ``name:`` on a line of a YAML-like listing ("" when empty), or None when it is not that field."""
    stripped = line.strip()
    if not stripped.startswith(name + ":"):
        return None
    return stripped[len(name) + 1 :].strip()


def container_gpu_listing_without_toolkit(lines: list[str]) -> Match | None:
    """LXD/Incus's resource listing ("NVIDIA information:" under the GPU) fills CUDA Version and NVRM Version from
    the NVIDIA container toolkit (nvidia-container-cli): both empty, with the host's driver named, mean the toolkit
    is missing and no container can be given the GPU."""
    for no, line in enumerate(lines[:5000], start=1):
        if _field(line, "NVIDIA information") != "":
            continue
        block = lines[no : no + 12]
        cuda = next((v for v in (_field(b, "CUDA Version") for b in block) if v is not None), None)
        nvrm = next((v for v in (_field(b, "NVRM Version") for b in block) if v is not None), None)
        if cuda == "" and nvrm == "":
            return Match("docker_no_gpu_runtime", no, line.strip()[:500], True, 0.8)
    return None


# An Xid NVIDIA lists as mostly the program's own fault (13 graphics exception, 31 MMU fault, 43 channel stopped,
# 45 preemptive cleanup), with its GPU and process: "NVRM: Xid (PCI:0000:db:00): 31, pid=13641, ...".
APP_CLASS_XID = re.compile(r"NVRM: Xid \((?P<gpu>[^)]*)\):\s*(?P<xid>13|31|43|45)\b[^\n]*?\bpid=(?P<pid>\d+)")
RECURRING_PROCESSES = 3


def recurring_app_xid_match(lines: list[str]) -> Match | None:
    """One GPU logs the same program-class Xid for several different processes (separate runs): NVIDIA's Xid guide
    reads a fault that follows the GPU across programs and runs as the GPU's (or its driver's), not one program's
    bug. Read as the cause (a lone program-class Xid stays the program's); a program rerun with the same bug looks
    the same, which the finding's confirm step (run another program on that GPU) tells apart."""
    pids: dict[tuple[str, str], set[str]] = {}
    first: dict[tuple[str, str], tuple[int, str]] = {}
    for no, line in enumerate(lines[:20000], start=1):
        m = APP_CLASS_XID.search(line[:2000])
        if m is None:
            continue
        key = (m.group("gpu"), m.group("xid"))
        pids.setdefault(key, set()).add(m.group("pid"))
        first.setdefault(key, (no, line.strip()[:500]))
    recurring = [key for key, seen in pids.items() if len(seen) >= RECURRING_PROCESSES]
    if not recurring:
        return None
    no, line = min(first[key] for key in recurring)
    return Match("gpu_xid_fault", no, line, True, 0.7)


# An NVIDIA GPU by its model name (what torch.cuda.get_device_name prints).
NVIDIA_MODEL = NVIDIA_GPU_MODEL


def gpu_and_build_shown(lines: list[str], matches: list[Match]) -> list[Match]:
    """The text shows a CUDA build of torch, or names an NVIDIA GPU: the guesses that the build is CPU-only or that
    the machine has no NVIDIA GPU are out (a verdict from the text itself stays)."""
    dropped = set()
    if shows_cuda_build(lines):
        dropped.add("cpu_only_build")
    if any(NVIDIA_MODEL.search(line[:2000]) for line in lines[:5000]):
        dropped.add("no_nvidia_gpu")
    if not dropped:
        return matches
    return [m for m in matches if not (m.id in dropped and not m.specific)]


# A CUDA library of the toolkit (runtime, cuRAND, cuBLAS, cuFFT, cuSPARSE, cuSOLVER, cuDNN, NVRTC, NVTX, CUPTI) that
# the loader cannot find.
CUDA_LIBRARY_MISSING = re.compile(
    r"\blib(?:cudart|curand|cublas(?:Lt)?|cufft|cusparse|cusolver|cudnn\w*|nvrtc|nvToolsExt|cupti)\.so[\d.]*: "
    r"cannot open shared object file",
    re.IGNORECASE,
)


# The board itself named: a module, its SoC, an L4T release or image, JetPack (the bare word "Jetson" may be elsewhere).
JETSON_BOARD = re.compile(
    r"\bJetson[ -](?:Nano|TX[12]|Xavier|AGX|NX|Orin)|\b(?:Orin|Xavier)\b|\bl4t\b|-tegra\b|\bTegra\b|\bJetPack\b",
    re.IGNORECASE,
)


def jetson_cuda_library_missing(lines: list[str], matches: list[Match]) -> list[Match]:
    """On a Jetson, torch failing to import because a CUDA library is missing: JetPack installs CUDA on the board
    (L4T R32.4-R32.7: CUDA 10.2, R34/R35: 11.4, R36: 12.x) and a JetPack torch links against that version, so a
    missing libcudart.so.10.2 / libcurand.so.10 means a wheel built for another JetPack, or a container started
    without the NVIDIA runtime that mounts the board's CUDA into it. Both are the JetPack-matched wheel/container
    reading; the import failure is its symptom, not a broken install to reinstall."""
    missing = next(
        ((no, line) for no, line in enumerate(lines, start=1) if CUDA_LIBRARY_MISSING.search(line[:2000])), None
    )
    if missing is None or not any("torch" in line[:2000].lower() for line in lines):
        return matches
    if not any(JETSON_BOARD.search(line[:2000]) for line in lines):
        return matches  # "Jetson" only in passing ("a wheel built on a Jetson, run on an ARM server")
    kept = [m for m in matches if m.id not in ("torch_import_error", "jetson_needs_nvidia_wheel")]
    return [*kept, Match("jetson_needs_nvidia_wheel", missing[0], missing[1].strip()[:500], True, 0.9)]


# L4T releases in the forms texts write them: a container tag ("l4t-ml:r34.1.0-py3", "noetic-pytorch-l4t-r32.5.0")
# and the board's own release ("R32 (release), REVISION: 6.1", "L4T 32.6.1", "with version r32.6").
# jetson-containers' own images carry the release at the end of the tag ("dustynv/pytorch:2.1-r36.2.0").
L4T_CONTAINER_TAG = re.compile(
    r"\bl4t[\w.-]*:r(\d{2})\.\d|\bl4t-r(\d{2})\.\d|\bdustynv/[\w.-]+:[\w.-]*?\br(\d{2})\.\d", re.IGNORECASE
)
L4T_RELEASE = re.compile(r"\bR(\d{2}) \(release\)|\bL4T\s*R?(\d{2})\.\d|(?<![\w:.-])[rR](\d{2})\.\d+(?:\.\d+)?\b")
# The JetPack line of each L4T major release (NVIDIA's JetPack archive): containers and wheels of one line do not run
# on a board of another (CUDA 10.2 on JetPack 4, 11.4 on JetPack 5, 12.x on JetPack 6).
JETPACK_OF_L4T = {28: 3, 32: 4, 34: 5, 35: 5, 36: 6, 38: 7, 39: 7}


def jetson_container_release_mismatch(lines: list[str], matches: list[Match]) -> list[Match]:
    """An L4T container of one JetPack line run on a board of another (an r34.1 image on L4T R32.6): its CUDA and
    libraries need the board's matching driver stack, so CUDA fails to initialise in it. The JetPack-matched
    container/wheel is the fix; the container-runtime and driver readings of the same CUDA failure stand down."""
    tag = next(
        ((no, line, m) for no, line in enumerate(lines, start=1) if (m := L4T_CONTAINER_TAG.search(line[:2000]))),
        None,
    )
    if tag is None:
        return matches
    image_line = JETPACK_OF_L4T.get(int(next(g for g in tag[2].groups() if g)))
    boards = {
        JETPACK_OF_L4T.get(int(next(g for g in m.groups() if g)))
        for line in lines
        for m in L4T_RELEASE.finditer(L4T_CONTAINER_TAG.sub(" ", line[:2000]))
    }
    boards.discard(None)
    if image_line is None or not boards or boards == {image_line}:
        return matches
    kept = [m for m in matches if m.id not in ("docker_no_gpu_runtime", "jetson_needs_nvidia_wheel")]
    return [*kept, Match("jetson_needs_nvidia_wheel", tag[0], tag[1].strip()[:500], True, 0.9)]


# A machine described as lacking an NVIDIA GPU ("on a computer without an nvidia graphics card"). The first-person
# statements ("I don't have an NVIDIA GPU", "we have no NVIDIA GPU") are the catalogue's no_nvidia_gpu pattern; this
# form also describes other machines ("built on a Jetson, fails on an ARM machine without an NVIDIA GPU"), so it
# only counts when the text asks CUDA for the GPU there.
MACHINE_WITHOUT_NVIDIA = re.compile(
    r"\b(?:computer|machine|laptop|PC|system|desktop|notebook)\s+(?:without|with no|that has no)\s+(?:an?\s+|any\s+)?"
    r"nvidia\s+(?:gpu|graphics(?: card)?|graphic card|video card|card)s?\b",
    re.IGNORECASE,
)
CUDA_CALLED = re.compile(
    r"torch\.cuda\.|\.cuda\(\)|device\s*=\s*['\"]cuda|CUDA is not available|No CUDA GPUs|Found no NVIDIA driver",
    re.IGNORECASE,
)


def machine_without_nvidia_gpu_match(lines: list[str]) -> Match | None:
    """The user's machine is described as having no NVIDIA GPU and the text calls CUDA on it: no GPU is the cause
    of whatever CUDA does there (an error, a silent exit)."""
    said = next(
        ((no, line) for no, line in enumerate(lines, start=1) if MACHINE_WITHOUT_NVIDIA.search(line[:2000])), None
    )
    if said is None or not any(CUDA_CALLED.search(line[:2000]) for line in lines):
        return None
    return Match("no_nvidia_gpu", said[0], said[1].strip()[:500], True, 0.8)
