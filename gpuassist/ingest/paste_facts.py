"""Facts that tools other than collect_env print, read from a paste: nvidia-smi's driver and GPUs, a REPL's
``torch.__version__`` / ``torch.cuda.is_available()``, the one-line torch summaries of accelerate /
transformers / ultralytics, what a pip or conda session installed, Jetson and Windows markers.

Only what the text states is read (no guessing); the rules then judge these facts exactly as they judge a
live diagnosis, so a paste of ``>>> torch.__version__ '2.1.0+cpu'`` gets the same fix as the machine would.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.ingest import conda_dry_run, prose
from gpuassist.ingest.aarch64_wheels import pypi_aarch64_build
from gpuassist.ingest.apple_words import apple_said, chip_said
from gpuassist.ingest.build_facts import build_facts, windows_pypi_build
from gpuassist.ingest.env_reports import report_facts
from gpuassist.ingest.lines import MAX_LINE, Sources, ascii_bounded, note_source
from gpuassist.ingest.mig_facts import mig_facts
from gpuassist.ingest.python_arch import python_arch_facts
from gpuassist.ingest.python_c import python_c_facts
from gpuassist.ingest.scheduler_facts import scheduler_facts

SMI_HEADER = re.compile(r"Driver Version:\s*(\d{3,}\.\d+(?:\.\d+)?)(?:.*?CUDA Version:\s*(\d+)\.(\d+))?")
SMI_Q_DRIVER = re.compile(r"^\s*Driver Version\s*:\s*(\d{3,}\.\d+(?:\.\d+)?)\s*$")
SMI_Q_CUDA = re.compile(r"^\s*CUDA Version\s*:\s*(\d+)\.(\d+)\s*$")
SMI_Q_PRODUCT = re.compile(r"^\s*Product Name\s*:\s*(.+?)\s*$")
# A GPU row of nvidia-smi's table; the column after the name is Persistence-M (On/Off) on Linux and the driver
# model (WDDM/TCC) on Windows.
SMI_ROW = re.compile(r"^\|\s+(\d+)\s+(.+?)\s+(?:On|Off|WDDM|TCC)\s+\|\s+[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")
# Only Windows' nvidia-smi shows a driver model: the "TCC/WDDM" header, WDDM/TCC in a GPU row, or `nvidia-smi -q`'s
# "Driver Model" section ("Current : WDDM").
SMI_WINDOWS = re.compile(
    r"\bTCC/WDDM\b|^\|\s+\d+\s+.+?\s+(?:WDDM|TCC)\s+\||^\s*(?:Current|Pending)\s*:\s*(?:WDDM|TCC)\s*$"
)
SMI_LIST = re.compile(r"^GPU (\d+): (.+?) \(UUID: GPU-")
# The value may be wrapped in backticks and the bullet may be "*" where the user formatted the report as Markdown.
FORK_TORCH = re.compile(r"PyTorch version \((?:GPU|accelerator)\?\)\s*:\s*`?\s*([^\s`]+)\s*\((\w+)\)", re.IGNORECASE)
FORK_GPU = re.compile(r"^\s*[-*]\s*GPU type\s*:\s*`?(.+?)`?\s*$", re.IGNORECASE)
# accelerate / transformers / diffusers `env` print platform.platform(): "Linux-4.4.0-19041-Microsoft-x86_64-...".
# Python's platform.platform() on macOS: "macOS-14.2.1-arm64-arm-64bit", "macOS-13.0-x86_64-i386-64bit" (CPython
# Lib/platform.py: 'macOS' + mac_ver()[0] + machine); the machine is the interpreter's (x86_64 under Rosetta).
MACOS_PLATFORM = re.compile(r"^macOS-(\d+(?:\.\d+){0,2})-(arm64|x86_64)\b", re.IGNORECASE)
FORK_PLATFORM = re.compile(r"^\s*[-*]\s*Platform\s*:\s*`?((?:Linux|Windows|macOS)-[^\s`]+)", re.IGNORECASE)
ULTRALYTICS = re.compile(
    r"^Ultralytics\b.*?\btorch-(\d+\.\d+[^\s,]*)(?:\s+(?:CUDA:(\d+)\s*\((.+?),\s*\d+\s*MiB\)|(CPU|MPS)))?"
)
# Environment reports that print torch's facts under keys of their own, one fact a line or one (key, value) pair
# each: detectron2's collect_env table ("PyTorch    1.5.1+cpu @/path", "GPU available   False", "GPU 0,1   Tesla
# V100 (arch=7.0)"), mmcv / mmdet collect_env ("PyTorch: 1.3.1", "CUDA available: True", "GPU 0: GeForce ..."),
# printed as a dict ("'CUDA available': True, 'PyTorch': '1.9.1'") or mmengine's OrderedDict ("('CUDA available',
# False), ('PyTorch', '2.0.1')"), the fields of torch's own
# get_env_info() in a web UI's sysinfo JSON ("torch_version": "2.0.1+cu118", "is_cuda_available": "True") and
# `python -m xformers.info` ("pytorch.version:   2.0.1+cu118", "pytorch.cuda:   available").
ENV_KEYS: dict[str, str] = {
    "pytorch": "torch.version",
    "torch_version": "torch.version",
    "pytorch.version": "torch.version",
    "gpu available": "cuda.available",
    "cuda available": "cuda.available",
    "is_cuda_available": "cuda.available",
    "pytorch.cuda": "cuda.available",
    "driver version": "driver.version",
    "nvidia_driver_version": "driver.version",
    "cuda_compiled_version": "torch.cuda_build",
    "nvidia_gpu_models": "reported.gpus",
    "gpu.name": "reported.gpus",
    "sys.platform": "host.os",
}
# A line only these reports print: their facts are read only from a text that has one (a conda plan's "pytorch:
# 0.4.0-py36_cuda9.1 --> 0.4.1-..." or a bug template's "PyTorch: 1.8" is not such a report).
ENV_REPORT_MARK = (
    r"^\s*sys\.platform(\s{2,}|:\s)\w|^\s*DETECTRON2_ENV_MODULE\s|\('CUDA available',\s*(True|False)\)|"
    r"'CUDA available':\s*(True|False)|"
    r"^\s*\"(Torch env info|is_cuda_available|torch_version)\"\s*:|^\s*pytorch\.(version|cuda):\s|"
    # sglang's check_env (python/sglang/check_env.py): "sglang: 0.4.1", "GPU 0 Compute Capability: 8.0"
    r"^sglang:\s+\d|^GPU [\d,]+ Compute Capability:\s+\d"
)
ENV_REPORT = re.compile(ENV_REPORT_MARK, re.IGNORECASE)
ENV_GPU_KEY = re.compile(r"gpu ([\d,]{1,40})")
# Bounded keys, values and gaps: linear on any line.
ENV_JSON = re.compile(r'^\s*"(?P<key>[\w. ]{1,40})"\s{0,20}:\s{0,20}(?P<val>"[^"]{0,500}"|null|true|false)\s*,?\s*$')
ENV_TUPLE = re.compile(r"\('(?P<key>[\w. ,]{1,40})',\s{0,5}(?P<val>'[^']{0,500}'|True|False|None)\)")
# mmcv's issue template prints collect_env() as a dict: {'sys.platform': 'linux', 'CUDA available': True, ...}.
ENV_DICT = re.compile(r"'(?P<key>[\w. ,]{1,40})':\s{0,5}(?P<val>'[^']{0,500}'|True|False|None)(?=\s*[,}]|\s*$)")
ENV_COLON = re.compile(r"^\s*(?P<key>[A-Za-z][\w.]{0,20}(?: [\w.,]{1,40}){0,2}):\s{1,80}(?P<val>\S.{0,500})$")
ENV_TABLE = re.compile(r"^\s*(?P<key>[A-Za-z][\w.]{0,20}(?: [\w.,]{1,40}){0,2})\s{2,80}(?P<val>\S.{0,500})$")
# xFormers' import warning names the torch it was built for and the one it found: "xFormers was built for:\n
#     PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)".
XFORMERS_HEAD = re.compile(r"xFormers can't load C\+\+/CUDA extensions|xFormers was built for:")
XFORMERS_TORCH = re.compile(r"^\s*PyTorch \S{1,40}(?: with CUDA \d{1,6})? \(you have (\d+\.\d+[\w.+]{0,40})\)")
REPL_IN = re.compile(
    r"^\s*(?:>>>|In \[\d+\]:)\s*(?:print\(\s*(torch\.[\w.]+(?:\(\d?\))?)\s*\)|(torch\.[\w.]+(?:\(\d?\))?))\s*;?\s*$"
)
REPL_OUT = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?(.*?)\s*$")
# A torch wheel file name without a local version (+cu121) built for Windows: PyPI's, which is CPU-only.
WINDOWS_PYPI_WHEEL = re.compile(r"\btorch-(\d+\.\d+\.\d+)-cp\d+-cp\d+\w*-win_amd64\.whl")
# PyTorch's own index named in the text ("-f https://download.pytorch.org/whl/torch_stable.html", ".../whl/cu101"):
# then an untagged Windows wheel is not PyPI's. PyPI had no Windows torch until after 1.1.0 (pytorch/pytorch#8098:
# "As of 1.1.0 we are still not uploading Windows to PyPI"), and the 2019 torch_stable.html listed the default
# CUDA build untagged ("cu101/torch-1.3.0-cp37-cp37m-win_amd64.whl") beside "+cpu" ones: the name alone does
# not tell the build there (round 27).
PYTORCH_OWN_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:torch_stable\.html|cu\d{2,3}\b)")
INSTALLED = re.compile(r"Successfully installed .*?\btorch-(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)\b")
CONDA_TORCH = re.compile(r"^\s*(?:\+\s*)?pytorch[\s=]+(\d+\.\d+(?:\.\d+)?)[\s=]+(\S+)")
# conda's package plan: "pytorch            pytorch/win-64::pytorch-1.10.0-py3.6_cpu_0".
CONDA_PLAN_TORCH = re.compile(
    r"::pytorch-(\d+\.\d+(?:\.\d+)?)-(\S+)|"
    # conda's download table: "    pytorch-2.3.1              |cpu_mkl_py311h2b5e8a0_100        28.5 MB  conda-forge".
    r"^\s*pytorch-(\d+\.\d+(?:\.\d+)?)\s*\|\s*(\S+)"
)
# conda-forge's CUDA builds name their CUDA in the build string: "cuda112py39h3ad7f43_1" (2021-22),
# "cuda118_py310h...", "cuda120_generic_py311h...", "cuda126_mkl_py312h..._300" (conda-forge/pytorch-cpu-feedstock's
# recipe: build string cuda{{ cuda_compiler_version|replace('.', '') }}_..., cpu builds cpu_{{ blas_impl }}_...).
CONDA_FORGE_CUDA_BUILD = re.compile(r"^cuda(\d{2})(\d)_?(?:generic_|mkl_)?py\d")
# pytorch as a package spec of a conda command, not as its channel ("-c pytorch", "--channel pytorch", "pytorch::").
CONDA_PYTORCH_SPEC = re.compile(
    r"(?<![\w/-])(?<!-c )(?<!--channel )(?<!--channel=)pytorch(?:-cuda)?(?![\w:-])", re.IGNORECASE
)
# A conda command that pins the CUDA of the pytorch package it installs ("... pytorch ... cudatoolkit=10.2").
CONDA_CUDA_PIN = re.compile(
    r"\bconda\s+(?:install|create)\b[^\n]*?\b(?:cudatoolkit|pytorch-cuda)\s*=+\s*(\d+\.\d+)", re.IGNORECASE
)
# conda could not solve the request, so the CUDA it asked for was never installed.
CONDA_SOLVE_FAILED = re.compile(r"PackagesNotFoundError|PackageNotFoundError|ResolvePackageNotFound|UnsatisfiableError")
# The text says it runs under WSL ("WSL2", "WSL 2", "Windows Subsystem for Linux"); "WSL 1" / "WSL1" is the old one.
# WSL's drvfs automount of a Windows drive (/mnt/c, wsl.conf's default automount root /mnt/) holding a Windows
# profile or system folder: a Linux path under it is a program run inside WSL (Cygwin says /cygdrive/c, MSYS /c/).
WSL_TEXT = re.compile(
    r"\bWSL ?2\b|\bWSL\b|Windows Subsystem for Linux|\bUbuntu Subsystem\b|"
    r"(?<![\w/.])/mnt/[a-z]/(?:Users|Windows|Program Files|ProgramData)/",
    re.IGNORECASE,
)
WSL1_TEXT = re.compile(r"\bWSL ?1\b", re.IGNORECASE)
# The text places itself outside WSL: WSL denied ("not WSL", "native Ubuntu, no WSL"), or a Windows partition
# mounted by native Linux (a dual boot, ntfs-3g), where /mnt/c/Users is the user's own mount point, not drvfs.
NOT_WSL_TEXT = re.compile(
    r"\b(?:not|no|without|isn'?t|outside(?: of)?)\s+(?:in\s+|on\s+|using\s+|a\s+)?(?:WSL|Windows Subsystem)|"
    r"\bdual[- ]?boot\w*|\bntfs-?3g\b",
    re.IGNORECASE,
)
# `wsl -l -v`'s row of the default distribution ("* Ubuntu    Running   1": its VERSION column) and `wsl --status`'s
# "Default Version: 1" state the WSL version outright, whatever the user calls it.
WSL_VERSION_SHOWN = re.compile(
    r"^\s*\*\s+\S+\s+(?:Running|Stopped|Installing|Converting|Uninstalling)\s+(?P<a>[12])\s*$|"
    r"^\s*Default Version\s*:\s*(?P<b>[12])\s*$",
    re.IGNORECASE,
)
JETSON_RELEASE = re.compile(
    r"\bR(\d+) \(release\), REVISION: ([\d.]+)|\bL4T\s+R?(\d+\.\d+(?:\.\d+)?)|-tegra\b|"
    r"tegrastats|GR3D_FREQ|(?<![A-Za-z])Jetson(?![A-Za-z])|(?<![A-Za-z])JetPack\s*[<>=]*\s*\d|"  # no \\b: CJK runs on
    # jetson-stats' jtop, the board's monitor; the SoC (Tegra X1, Tegra194), its GPU's names (ga10b, gv11b, gp10b,
    # gm20b, the nvgpu driver) and JetPack written short (JP5.1.2).
    r"\bjtop\b|\bjetson[-_]stats\b|(?<![A-Za-z])Tegra(?![a-z])|\b(?:ga10b|gv11b|gp10b|gm20b|nvgpu)\b|"
    r"(?<![A-Za-z])JP\s?[4-6]\.\d|\bXavier[ -](?:AGX|NX)\b|"
    # The modules by name (Orin, Xavier NX / AGX Xavier) and NVIDIA's L4T container images (l4t-pytorch, l4t-base).
    r"(?<![A-Za-z])Orin(?![A-Za-z])|\bXavier[ -]NX\b|\bAGX[ -]Xavier\b|"
    r"\bl4t-(?:base|pytorch|ml|jetpack|tensorflow|cuda|r\d)|"
    # L4T's Debian packages (dpkg -l: nvidia-l4t-core 35.4.1-...; apt show nvidia-jetpack), jtop's "L4T: 35.3.1" and
    # "Jetpack: 5.1.1", the board configs of /etc/nv_tegra_release (BOARD: t186ref), NVIDIA's JetPack wheel folder
    # (developer.download.nvidia.com/compute/redist/jp/v512/pytorch/) and jetson-containers' images (dustynv/...).
    r"\bnvidia-l4t-[a-z]|\bnvidia-jetpack\b|\bL4T\s*[:=]\s*R?\d{2}\.\d|(?<![A-Za-z])JetPack\s*[:=]\s*[4-7]\.\d|"
    r"\bBOARD: t\d{3}ref\b|/redist/jp/v\d{2,3}/|\bdustynv/[\w.-]+:",
    re.IGNORECASE,
)
# Docker's warning when an image of another architecture runs: "The requested image's platform (linux/arm64) does not
# match the detected host platform (linux/amd64)". A Jetson line that is only such an image's name says nothing of the
# host.
DOCKER_HOST_AMD64 = re.compile(r"does not match the detected host platform \(linux/amd64")
JETSON_IMAGE_ONLY = re.compile(r"\bl4t-|\bdustynv/|/redist/jp/", re.IGNORECASE)
# NVIDIA's Grace-based systems, whose CPU is always ARM (aarch64, SBSA): GH200 / GB200 / GB300 superchips, the GB10 of
# DGX Spark, "Grace Hopper" / "Grace Blackwell", and Grace's own core (Neoverse-V2, lscpu's "Model name"). Not the GPU
# dies (lspci's "GH100 [H100 PCIe]", "GB202": x86 machines have them too).
GRACE_SYSTEM = re.compile(
    r"\bG(?:H200|B200|B300|B10)\b|\bDGX\s+Spark\b|\bGrace[ -](?:Hopper|Blackwell)\b|\bNeoverse-V2\b"
)
# Lower-case words one of which every JETSON_RELEASE match contains: most lines have none, and skip the regex.
JETSON_HINTS = (
    "release), revision",
    "l4t",
    "tegra",
    "gr3d_freq",
    "jetson",
    "jetpack",
    "jtop",
    "ga10b",
    "gv11b",
    "gp10b",
    "gm20b",
    "nvgpu",
    "jp",
    "xavier",
    "orin",
    "redist/jp/",
    "board: t",
    "dustynv/",
)


def _may_name_a_jetson(line: str) -> bool:
    low = line.lower()
    return any(hint in low for hint in JETSON_HINTS)


# The text says it is a Mac: its words (MacBook, macOS, OS X, M1 Pro, Apple silicon, "I'm on a Mac") or a macOS home
# path (/Users/name/...; Windows writes C:\\Users).
MAC_TEXT = re.compile(
    ascii_bounded(
        r"\bmac ?os\b|\bos ?x\b|\bmacbook|\bimac\b|\bmac (?:mini|studio|pro)\b|\bapple (?:m[1-9]|silicon)\b|"
        r"\bm[1-9] (?:pro|max|ultra|chip|mac)\b|\bm[1-9] macbook|\b(?:using|on|for|with) (?:a |my )?mac\b|\bdarwin\b|"
        # the machine before the chip ("Mac M1", "MacBook Air M2"), and in Chinese ("M1芯片": M1 chip, "苹果电脑": Apple
        # computer)
        r"\bmac(?:book)?(?: (?:pro|air|mini|studio))? m[1-9]\b|(?<![a-z0-9])m[1-9]\s*芯片|苹果电脑|"
        r"(?:^|[\s\"'(`])/Users/[^/\s]+/|"
        # the user's own Mac ("my Mac", "my mac's GPU"), and a Mac said to lack CUDA or an NVIDIA GPU ("Mac doesn't have
        # cuda", "Macs have no NVIDIA GPU"): Apple has shipped no NVIDIA GPU since 2016 and CUDA dropped macOS after
        # CUDA 10.2 (NVIDIA's CUDA 10.2 release notes), so these say which machine the text comes from. A MAC address
        # (upper case, or followed by "address") is no Mac.
        r"\bmy mac\b(?! ?address)|(?-i:\b[Mm]acs?\b)(?! ?address)[^.\n]{0,30}"
        r"\b(?:doesn'?t|does not|don'?t|do not|has no|have no|can'?t|cannot|lacks?)\b[^.\n]{0,20}\b(?:cuda|nvidia)\b"
    ),
    re.IGNORECASE,
)
# A macOS shell prompt: zsh (macOS's default shell) ends it with "%", and the host keeps the Mac's default name or
# its usual short forms: "me@MY-MBP ULTRA %", "ana@Anas-Mac-mini ~ %", "(venv) bob@iMac proj %".
MAC_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)\s*)?[\w.-]+@[\w.-]*?(?<![a-z0-9])(?:MBP|MBA|Mac(?:Book)?|iMac|Mac-?mini|Mac-?Studio)(?![a-z])[\w.-]*"
    r"\s+\S+\s+%(?:\s|$)",
    re.IGNORECASE,
)
APPLE_SILICON = re.compile(
    ascii_bounded(
        r"\bmac(?:book)?(?: (?:pro|air|mini|studio))? m[1-9]\b|(?<![a-z0-9])m[1-9]\s*芯片|\bapple (?:m[1-9]|silicon)\b|"
        r"\bm[1-9](?: (?:pro|max|ultra|chip|mac|macbook))?\b(?=[^\n]{0,40}"
        r"\b(?:mac|macbook|apple|chip)\b)|\bm[1-9] (?:pro|max|ultra) chip\b"
    ),
    re.IGNORECASE,
)
# (ASCII-bounded like MAC_TEXT: "Ubuntu上", "Linux服务器" name the machine in CJK prose as much as MAC_TEXT's "M1 Macで"
# names a Mac, so a Mac named only as a comparison beside them is not taken for the machine.)
LINUX_TEXT = re.compile(
    ascii_bounded(r"\blinux\b|\bubuntu\b|\bdebian\b|\bcentos\b|\bfedora\b|/home/|\bwsl\b"), re.IGNORECASE
)
# Apple silicon with an x86_64 Python: Rosetta says so itself (sysctl), or the text names both.
ROSETTA = re.compile(r"sysctl\.proc_translated:?\s*1\b|proc_translated\s*=\s*1\b")
# The chip named ("Apple M1"), or software that runs only on Apple silicon and that the user is installing or running:
# MLX ("an array framework for machine learning on Apple silicon", ml-explore/mlx; its wheels are macOS arm64 only),
# mlx-lm, vllm-metal (vLLM's Apple-silicon plugin, built on MLX). "mlx5" (Mellanox NICs) is not MLX.
APPLE_CHIP = re.compile(r"\bApple M\d\b|(?i:\bvllm-metal\b|\bmlx(?:[-_]lm)?(?![\w-]))")
# conda's own subdir says the same: `conda info`'s "platform : osx-64" and its channel URLs (".../pytorch/osx-64")
# are an x86_64 conda (an arm64 one is osx-arm64).
MAC_X86 = re.compile(
    r"macOS-[\d.]+-x86_64|OS: macOS [\d.]+ \(x86_64\)|Darwin\b.*\bx86_64|'x86_64'|"
    r"\bplatform\s*:\s*osx-64\b|conda\.anaconda\.org/[\w.-]+/osx-64\b|"
    # uv names the running interpreter's own platform tag: "has no wheels with a matching platform tag (e.g.,
    # `macosx_26_0_x86_64`)" (the tags wheels *are* available for follow in its hint, not here).
    r"matching platform tag \(e\.g\., `macosx_\d+_\d+_x86_64`\)"
)
# A torch version with the +cpu local tag anywhere on a line about torch ("runtime reports PyTorch `2.9.1+cpu`",
# xFormers' "built for PyTorch 2.6.0+cu124 ... (you have 2.6.0+cpu)"): the build is stated outright.
TORCH_WORD = re.compile(ascii_bounded(r"\b(?:py)?torch(?!vision|audio|text)\b"), re.IGNORECASE)
PLUS_CPU = re.compile(r"(?<![A-Za-z0-9_.+])(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev)\d+)?\+cpu)\b")
# torch.version.cuda said in words to be None ("torch.version.cuda prints None", "`torch.version.cuda` -> None",
# "torch.version.cuda is None"): torch says it was built without CUDA. Not code testing it ("if torch.version.cuda is
# None:", "assert ..."), and not a question.
CUDA_BUILD_NONE_SAID = re.compile(
    r"torch\.version\.cuda(?:\(\))?\)?[`'\"]?\s*(?:(?:is|returns?|returned|prints?|printed|gives?|gave|shows?|showed|"
    r"says|said|outputs?|was)\s+|=+\s*|->\s*|:\s*)[`'\"]?None\b(?!\s*:)",
)
CODE_TEST = re.compile(r"\b(?:if|elif|assert|while|return|and|or|not)\s+[^\n]{0,20}torch\.version\.cuda")
# ... nor a statement about builds in general, right after the None: "torch.version.cuda is None for CPU-only builds",
# "... returns None on the CPU build (mine prints 12.1)", "... is None when torch was built without CUDA".
ABOUT_BUILDS = re.compile(
    r"^[`'\"]?\s*(?:\w+\s+){0,2}?(?:for|on|in|with)\s+(?:a\s+|an\s+|the\s+|all\s+|any\s+|every\s+)?"
    r"(?:cpu|non-cuda)[\w-]*\s+(?:builds?|wheels?|versions?|installs?|torch|pytorch|packages?)\b|"
    r"^[`'\"]?\s*(?:if|when|whenever|means|meaning|indicates)\b",
    re.IGNORECASE,
)
# pip's resolver output lists versions that exist, not the one installed.
# A resolver's answer names versions asked for or on offer, not the installed one: pip ("from versions:", "The user
# requested torch==", "The conflict is caused by"), uv's and Poetry's PubGrub reports ("Because torch==2.11.0+cpu has no
# wheels with a matching platform tag ... you require ...", "hint: Wheels are available for `torch` (v2.11.0+cpu)",
# "which doesn't match any versions, version solving failed"), conda ("UnsatisfiableError", "PackagesNotFoundError").
RESOLVER_LIST = re.compile(
    r"from versions:|Could not find a version|No matching distribution|Looking in|The user requested|"
    r"The conflict is caused by|ResolutionImpossible|conflicting dependencies|"
    r"\bBecause\b[^\n]*\b(?:has no wheels|depends on|requires|doesn't match any versions)|"
    r"has no wheels with a matching platform tag|\byou require\b|"
    r"\bWheels are available for\b|we can conclude that|requirements are unsatisfiable|version solving failed|"
    r"UnsatisfiableError|PackagesNotFoundError",
    re.IGNORECASE,
)
# pip's "No matching distribution found for torch" and uv's PubGrub answer ("No solution found when resolving
# dependencies: ... there is no version of torch==2.1.0+cpu"): the install command installed nothing.
TORCH_NOT_FOUND = re.compile(
    r"No matching distribution found for torch(?![\w-])|satisfies the requirement torch(?![\w-])|"
    r"there is no version of torch(?![\w-])|"
    r"No solution found when resolving",
    re.I,
)
PIP_INSTALL = re.compile(r"\bpip3?(?:\.exe)?\s+install\b", re.IGNORECASE)
# A traceback frame inside the torch package: torch is installed there (its __init__ ran, or failed).
TORCH_INIT = re.compile(r"File \"(?P<file>[^\"]*?[/\\](?:site|dist)-packages[/\\]torch[/\\]__init__\.py)\"")
WINDOWS = re.compile(
    r"(?<![\w/])[A-Za-z]:\\[^\\\s:*?\"<>|]+\\|(?:^|\s)PS [A-Za-z]:\\|"
    r"\bWinError\b|Microsoft Windows \[Version",
    re.IGNORECASE,
)
# The text names Windows in words ("Windows 11", "win10", an issue template's "OS: Windows"): without a Linux, WSL
# or container word it is the machine's OS. No \b around "win10": CJK text runs into it ("本地win10机器"), nor
# "Windowsマシン", "Windows台式机" (ASCII-bounded).
WINDOWS_TEXT = re.compile(
    r"(?<![A-Za-z])win(?:dows)?\s?(?:7|8(?:\.1)?|10|11)(?![A-Za-z0-9.])|" + ascii_bounded(r"\bwindows\b(?! subsystem)"),
    re.IGNORECASE,
)
NOT_WINDOWS_TEXT = re.compile(
    r"\blinux\b|\bubuntu\b|\bdebian\b|\bcentos\b|\bfedora\b|/home/|\bwsl\b|\bdocker\b|"
    r"\bcontainer\b|\bpodman\b|\bmac ?os\b|\bmacbook|\bvirtual ?box\b|\bvmware\b|"
    r"\bdual[- ]boot",
    re.IGNORECASE,
)


def _cuda_int(major: str, minor: str) -> int:
    return int(major) * 1000 + int(minor) * 10


def nvidia_smi_facts(lines: list[str], skip: set[int], sources: Sources) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    for no, raw in enumerate(lines, start=1):
        if no in skip:
            continue
        line = raw[:MAX_LINE]
        m = SMI_HEADER.search(line) or SMI_Q_DRIVER.match(line)
        if m and "driver.version" not in facts:
            facts["driver.version"] = m.group(1)
            facts["driver.version_source"] = "nvidia-smi (pasted)"
            note_source(sources, ("driver.version",), no, line)
            if m.re is SMI_HEADER and m.group(2):
                facts["cuda.driver_version"] = _cuda_int(m.group(2), m.group(3))
                note_source(sources, ("cuda.driver_version",), no, line)
        q = SMI_Q_CUDA.match(line)
        if q and "cuda.driver_version" not in facts:
            facts["cuda.driver_version"] = _cuda_int(q.group(1), q.group(2))
            note_source(sources, ("cuda.driver_version",), no, line)
        row = SMI_ROW.match(line) or SMI_LIST.match(line)
        if row:
            gpus.append({"index": int(row.group(1)), "name": row.group(2).strip()})
            note_source(sources, ("reported.gpus",), no, line)
        prod = SMI_Q_PRODUCT.match(line)
        if prod:
            gpus.append({"index": len(gpus), "name": prod.group(1)})
            note_source(sources, ("reported.gpus",), no, line)
    if gpus:
        facts["reported.gpus"] = gpus
    return facts


def _available(word: str) -> bool | None:
    w = word.strip().lower()
    if w in ("true", "cuda", "yes"):
        return True
    if w in ("false", "na", "no", "none"):
        return False
    return None


def fork_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """accelerate / transformers / diffusers `env` and ultralytics' banner: torch version and whether CUDA worked."""
    facts: dict[str, Any] = {}
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        m = FORK_TORCH.search(line)
        if m and "torch.version" not in facts:
            facts["torch.version"] = m.group(1)
            available = _available(m.group(2))
            if available is not None:
                facts["cuda.available"] = available
            note_source(sources, ("torch.version", "torch.cuda_build", "cuda.available"), no, line)
        g = FORK_GPU.match(line)
        if g and "reported.gpus" not in facts:
            facts["reported.gpus"] = [{"index": 0, "name": g.group(1)}]
            note_source(sources, ("reported.gpus",), no, line)
        plat = FORK_PLATFORM.match(line)
        if plat and "host.os" not in facts:
            found = platform_string_facts(plat.group(1))
            facts.update(found)
            note_source(sources, list(found), no, line)
        u = ULTRALYTICS.search(line.strip())
        if u:  # the last banner is the latest run
            for key in ("torch.version", "torch.cuda_build", "cuda.available", "reported.gpus"):
                facts.pop(key, None)
                sources.pop(key, None)
            facts["torch.version"] = u.group(1)
            if u.group(3):
                facts["cuda.available"] = True
                facts["reported.gpus"] = [{"index": int(u.group(2)), "name": u.group(3)}]
            note_source(sources, ("torch.version", "torch.cuda_build", "cuda.available", "reported.gpus"), no, line)
    _local_build(facts)
    return facts


def _env_pairs(line: str) -> list[tuple[str, str]]:
    """(key, value) pairs a line of an environment report states, keys lower-cased, values unquoted."""
    pairs = [(m.group("key"), m.group("val")) for m in ENV_TUPLE.finditer(line)]
    pairs = pairs or [(m.group("key"), m.group("val")) for m in ENV_DICT.finditer(line)]
    if not pairs:
        m = ENV_JSON.match(line) or ENV_COLON.match(line) or ENV_TABLE.match(line)
        if m:
            pairs = [(m.group("key"), m.group("val"))]
    return [(key.strip().lower(), val.strip().strip("'\"").strip()) for key, val in pairs]


def _env_value(fact: str, value: str) -> Any:
    """The fact an environment report's value states, or None when the value says nothing (or is not one)."""
    low = value.lower()
    if fact == "torch.version":
        m = re.match(r"(\d+\.\d+[\w.+]*)", value)
        return m.group(1) if m else None
    if fact == "cuda.available":
        if low.startswith(("not available", "unavailable")):
            return False
        if low == "available":
            return True
        return _available(re.split(r"[:\s]", low, maxsplit=1)[0] if low.startswith(("yes", "no")) else low)
    if fact == "driver.version":
        m = re.fullmatch(r"(\d{3,}\.\d+(?:\.\d+)?)", value)
        return m.group(1) if m else None
    if fact == "torch.cuda_build":
        if low in ("null", "none"):
            return ""  # stated: no CUDA (see env_table_facts)
        m = re.fullmatch(r"(\d+\.\d+)(?:\.\d+)*", value)
        return m.group(1) if m else None
    if fact == "host.os":
        return {"linux": "Linux", "win32": "Windows", "darwin": "Darwin"}.get(low)
    if fact == "reported.gpus":
        names = [re.sub(r"^GPU \d+:\s*|\s*\((?:arch|UUID)[^)]*\)\s*$", "", n).strip() for n in value.split("\\n")]
        return [n for n in names if n] or None
    return None


def env_table_facts(lines: list[str], skip: set[int], sources: Sources) -> dict[str, Any]:
    """torch's facts from an environment report that names them its own way (see ENV_KEYS): only in a text that
    shows such a report (ENV_REPORT), and only when it states two or more of them."""
    if not any(ENV_REPORT.search(line[:MAX_LINE]) for line in lines):
        return {}
    facts: dict[str, Any] = {}
    stated: Sources = {}
    for no, raw in enumerate(lines, start=1):
        if no in skip:
            continue
        line = raw[:MAX_LINE]
        for key, value in _env_pairs(line):
            gpu = ENV_GPU_KEY.fullmatch(key)
            fact = "reported.gpus" if gpu else ENV_KEYS.get(key)
            if fact is None or fact in facts:
                continue
            found = _env_value(fact, value)
            if found is None:
                continue
            if gpu:
                found = [{"index": int(i), "name": found[0]} for i in gpu.group(1).split(",") if i.strip().isdigit()]
            elif fact == "reported.gpus":
                found = [{"index": i, "name": name} for i, name in enumerate(found)]
            facts[fact] = None if found == "" else found
            note_source(stated, (fact, "torch.cuda_build") if fact == "torch.version" else (fact,), no, line)
    if len([k for k in facts if k != "host.os"]) < 2:
        return {}
    for key, where in stated.items():
        sources.setdefault(key, where)
    _local_build(facts)
    return facts


LIGHTNING_SECTION = re.compile(r"^\*\s{1,5}(\w{1,30}):\s*$")
LIGHTNING_KEY = re.compile(r"^\s{0,20}-\s{1,5}([\w.\-]{1,60}):\s{0,40}(.{0,500})$")
LIGHTNING_ITEM = re.compile(r"^\s{0,20}-\s{1,5}(\S.{0,200})$")


def lightning_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """Lightning's bug-report environment (collect_env_details.py): "* CUDA:" with "- GPU:" (a list of names, or
    None), "- available:" (torch.cuda.is_available()) and "- version:" (torch.version.cuda); "- torch:" under
    "* Lightning:" / "* Packages:"; "- OS:" under "* System:"."""
    facts: dict[str, Any] = {}
    section = ""
    gpus: list[str] | None = None
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        head = LIGHTNING_SECTION.match(line)
        if head:
            section, gpus = head.group(1).lower(), None
            continue
        key = LIGHTNING_KEY.match(line)
        if key and section:
            name, value = key.group(1).lower(), key.group(2).strip()
            gpus = None
            if section == "cuda" and name == "gpu":
                gpus = [] if not value else None  # "None": torch saw no GPU, which says nothing of the machine
            elif section == "cuda" and name == "available" and _available(value) is not None:
                facts["cuda.available"] = _available(value)
                note_source(sources, ("cuda.available",), no, line)
            elif section == "cuda" and name == "version":
                build = re.fullmatch(r"(\d+\.\d+)(?:\.\d+)*", value)
                if build or value.lower() == "none":
                    facts["torch.cuda_build"] = build.group(1) if build else None
                    note_source(sources, ("torch.cuda_build",), no, line)
            elif section in ("lightning", "packages") and name == "torch" and re.match(r"\d+\.\d+", value):
                facts.setdefault("torch.version", value)
                note_source(sources, ("torch.version",), no, line)
            elif section == "system" and name == "os" and value in ("Linux", "Windows", "Darwin"):
                facts["host.os"] = value
                note_source(sources, ("host.os",), no, line)
            continue
        item = LIGHTNING_ITEM.match(line)
        if item and gpus is not None:
            gpus.append(item.group(1).strip())
            facts["reported.gpus"] = [{"index": i, "name": n} for i, n in enumerate(gpus)]
            note_source(sources, ("reported.gpus",), no, line)
    if "cuda.available" not in facts:
        return {}  # no "* CUDA:" section: not this report
    _local_build(facts)
    return facts


def xformers_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """The torch xFormers' import warning says is installed ("(you have 2.1.0+cpu)")."""
    facts: dict[str, Any] = {}
    if not any(XFORMERS_HEAD.search(line[:MAX_LINE]) for line in lines):
        return facts
    for no, raw in enumerate(lines, start=1):
        m = XFORMERS_TORCH.match(raw[:MAX_LINE])
        if m:
            facts["torch.version"] = m.group(1)
            note_source(sources, ("torch.version", "torch.cuda_build"), no, raw)
            break
    _local_build(facts)
    return facts


def platform_string_facts(plat: str) -> dict[str, Any]:
    """What Python's platform.platform() string says: the OS, and WSL 1 ("-Microsoft-", kernel 4.4) or WSL 2
    ("-microsoft-standard-WSL2")."""
    facts: dict[str, Any] = {}
    low = plat.lower()
    facts["host.os"] = "Windows" if low.startswith("windows") else "Darwin" if low.startswith("macos") else "Linux"
    if "microsoft" in low:
        facts["platform.wsl"] = "wsl2" if "wsl2" in low or "standard" in low else "wsl1"
    mac = MACOS_PLATFORM.match(plat)
    if mac:  # platform.platform() on macOS: "macOS-<platform.mac_ver()[0]>-<platform.machine()>-..."
        facts["python.mac_ver"] = mac.group(1)
        facts["python.machine"] = mac.group(2)
    return facts


def _local_build(facts: dict[str, Any]) -> None:
    """A local version tag states the build: +cpu has no CUDA, +cu121 is CUDA 12.1."""
    version = str(facts.get("torch.version") or "")
    tag = version.partition("+")[2]
    if tag == "cpu":
        facts.setdefault("torch.cuda_build", None)
    elif re.fullmatch(r"cu\d{3,4}", tag):
        facts.setdefault("torch.cuda_build", f"{tag[2:-1]}.{tag[-1]}")


# The banner a new interpreter prints: "Python 3.8.10 (default, Mar 15 2022, 12:22:08)".
REPL_BANNER = re.compile(r"^\s*Python \d+\.\d+\.\d+\S* \(")


def repl_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """`>>> torch.__version__` and friends, with the line(s) the interpreter printed after them.

    A paste can hold several sessions (each starts with the interpreter's banner): the one where CUDA fails next to
    one where it works ("in the other container it is True"). The failing one is the problem asked about, so its
    facts stand; without a failing session, later sessions override earlier ones (a re-run after a change)."""
    sessions: list[tuple[dict[str, Any], Sources]] = []
    facts: dict[str, Any] = {}
    said: Sources = {}
    for i, raw in enumerate(lines):
        if REPL_BANNER.match(raw[:MAX_LINE]) and facts:
            sessions.append((facts, said))
            facts, said = {}, {}
        m = REPL_IN.match(raw[:MAX_LINE])
        if not m:
            continue
        expr = m.group(1) or m.group(2)
        nxt = lines[i + 1][:MAX_LINE] if i + 1 < len(lines) else ""
        out_m = REPL_OUT.match(nxt)
        out = out_m.group(1) if out_m and not REPL_IN.match(nxt) and not nxt.lstrip().startswith(">>>") else ""
        value = out.strip().strip("'\"")
        before = set(facts)
        if expr == "torch.__version__" and re.match(r"^\d+\.\d+", value):
            facts["torch.version"] = value
        elif expr == "torch.version.cuda":
            # The REPL prints nothing for None.
            facts["torch.cuda_build"] = value if re.match(r"^\d+\.\d+", value) else None
        elif expr == "torch.cuda.is_available()" and _available(value) is not None:
            facts["cuda.available"] = _available(value)
        elif expr == "torch.cuda.device_count()" and value.isdigit():
            facts["cuda.device_count"] = int(value)
        elif re.fullmatch(r"torch\.cuda\.get_device_name\(\d?\)", expr) and re.search(
            r"nvidia|geforce|quadro|tesla|titan|rtx|gtx", value, re.IGNORECASE
        ):
            facts["reported.gpus"] = [{"index": 0, "name": value}]  # the device torch itself names
        elif expr == "torch.cuda.get_arch_list()" and value.startswith("["):
            facts["torch.arch_list"] = re.findall(r"(?:sm|compute)_\d+a?", value)
        new = [k for k in facts if k not in before]
        if new:
            note_source(
                said,
                [*new, "torch.cuda_build"] if "torch.version" in new else new,
                i + 1,
                f"{raw.strip()}  ->  {out.strip()}",
            )
    sessions.append((facts, said))
    failing = [s for s in sessions if s[0].get("cuda.available") is False]
    chosen = failing[-1:] if failing else sessions
    merged: dict[str, Any] = {}
    for session_facts, session_sources in chosen:
        merged.update(session_facts)
        for key, where in session_sources.items():
            note_source(sources, (key,), *where)
    _local_build(merged)
    return merged


def install_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """What a pip or conda session says it installed (the last torch it names)."""
    facts: dict[str, Any] = {}
    planned_only = conda_dry_run.dry_run(lines)  # the plan's rows show what would be installed, not what is
    own_index = any(PYTORCH_OWN_INDEX.search(line[:MAX_LINE]) for line in lines)
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        m = INSTALLED.search(line)
        if m:
            facts["torch.version"] = m.group(1)
            note_source(sources, ("torch.version", "torch.cuda_build"), no, line)
        w = WINDOWS_PYPI_WHEEL.search(line)
        if w and not own_index:
            facts["torch.version"] = w.group(1)
            facts["torch.cuda_build"] = None
            facts["host.os"] = "Windows"
            note_source(sources, ("torch.version", "torch.cuda_build", "host.os"), no, line)
        pin = CONDA_CUDA_PIN.search(line)
        if pin and CONDA_PYTORCH_SPEC.search(line) and "conda.requested_cuda" not in facts:
            facts["conda.requested_cuda"] = pin.group(1)
            note_source(sources, ("torch.cuda_build",), no, line)
        c = CONDA_TORCH.match(line) or (None if planned_only else CONDA_PLAN_TORCH.search(line))
        version, build = [g for g in c.groups() if g][:2] if c else (None, "")
        if c and version and re.search(r"cpu|cuda|py\d", build):
            facts["torch.conda_build"] = build
            facts.setdefault("torch.version", version)
            forge_cuda = CONDA_FORGE_CUDA_BUILD.match(build)
            if "cpu" in build:
                facts["torch.cuda_build"] = None
            elif forge_cuda:
                facts["torch.cuda_build"] = f"{int(forge_cuda.group(1))}.{forge_cuda.group(2)}"
            note_source(sources, ("torch.conda_build", "torch.version", "torch.cuda_build"), no, line)
    _local_build(facts)
    # What the command asked for stands for the build only when nothing shows what conda actually installed (a
    # solver can fall back to the CPU package: then the package plan says so and wins).
    requested = facts.pop("conda.requested_cuda", None)
    solve_failed = any(CONDA_SOLVE_FAILED.search(line[:MAX_LINE]) for line in lines)  # nothing was installed
    if requested and "torch.cuda_build" not in facts and not solve_failed and not planned_only:
        facts["torch.cuda_build"] = requested
    return facts


def _cuda_build_none_said(line: str) -> bool:
    return any(
        (said := CUDA_BUILD_NONE_SAID.search(sentence)) is not None
        and not ABOUT_BUILDS.search(sentence[said.end() :])
        and not CODE_TEST.search(sentence)
        and not prose.is_question(sentence)
        for sentence in prose.split(line)
    )


def mention_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """Facts stated in passing: a +cpu torch version on a line about torch, torch's own file in a traceback."""
    facts: dict[str, Any] = {}
    # pip said the requested torch does not exist for this Python: the version on its install line is not installed.
    not_found = any(TORCH_NOT_FOUND.search(line[:MAX_LINE]) for line in lines)
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        cpu = PLUS_CPU.search(line)
        if not_found and PIP_INSTALL.search(line):
            cpu = None
        if cpu and "torch.version" not in facts and TORCH_WORD.search(line) and not RESOLVER_LIST.search(line):
            facts["torch.version"] = cpu.group(1)
            facts["torch.cuda_build"] = None
            note_source(sources, ("torch.version", "torch.cuda_build"), no, line)
        if "torch.cuda_build" not in facts and _cuda_build_none_said(line):
            facts["torch.cuda_build"] = None
            note_source(sources, ("torch.cuda_build",), no, line)
        init = TORCH_INIT.search(line)
        if init and "torch.file" not in facts:
            facts["torch.file"] = init.group("file")
            note_source(sources, ("torch.file",), no, line)
    return facts


def _jetson_only_as_images(lines: list[str]) -> bool:
    """Every line that names a Jetson names it as an image or wheel (l4t-pytorch, dustynv/..., redist/jp/)."""
    return all(
        JETSON_IMAGE_ONLY.search(line[:MAX_LINE])
        for line in lines
        if _may_name_a_jetson(line[:MAX_LINE]) and JETSON_RELEASE.search(line[:MAX_LINE])
    )


def platform_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "host.os" not in facts and (WINDOWS.search(line) or SMI_WINDOWS.search(line)):
            facts["host.os"] = "Windows"
            note_source(sources, ("host.os",), no, line)
        if "platform.jetson" not in facts and _may_name_a_jetson(line) and JETSON_RELEASE.search(line):
            facts["platform.jetson"] = line.strip()[:200]
            note_source(sources, ("platform.jetson",), no, line)
    host = next(
        ((no, line) for no, line in enumerate(lines, start=1) if DOCKER_HOST_AMD64.search(line[:MAX_LINE])), None
    )
    if host and "platform.jetson" in facts and _jetson_only_as_images(lines):
        # Docker says the host is an x86 PC running an arm64 Jetson image under emulation: not a Jetson.
        del facts["platform.jetson"]
        sources.pop("platform.jetson", None)
        facts["host.machine"] = "x86_64"
        note_source(sources, ("host.machine",), *host)
    if "platform.jetson" in facts:
        facts.setdefault("host.machine", "aarch64")
    elif grace := next(
        ((no, line) for no, line in enumerate(lines, start=1) if GRACE_SYSTEM.search(line[:MAX_LINE])), None
    ):
        facts["host.machine"] = "aarch64"  # an ARM server (SBSA), not a Jetson: PyPI's aarch64 wheels are its own
        note_source(sources, ("host.machine",), *grace)
    if "host.os" not in facts and "platform.jetson" not in facts:
        named = next(
            ((no, line) for no, line in enumerate(lines, start=1) if WINDOWS_TEXT.search(line[:MAX_LINE])), None
        )
        if named and not any(NOT_WINDOWS_TEXT.search(line[:MAX_LINE]) for line in lines):
            facts["host.os"] = "Windows"
            note_source(sources, ("host.os",), *named)
    wsl = next(((no, line) for no, line in enumerate(lines, start=1) if WSL_TEXT.search(line[:MAX_LINE])), None)
    if wsl and any(NOT_WSL_TEXT.search(line[:MAX_LINE]) for line in lines[:5000]):
        wsl = None  # the text says it is not WSL (a WSL_VERSION_SHOWN table would still be shown below)
    if wsl:
        facts["platform.wsl"] = "wsl1" if WSL1_TEXT.search(wsl[1]) else "wsl2"
        note_source(sources, ("platform.wsl",), *wsl)
        shown = next(
            (
                (no, line, m)
                for no, line in enumerate(lines, start=1)
                if (m := WSL_VERSION_SHOWN.search(line[:MAX_LINE]))
            ),
            None,
        )
        if shown is not None:
            facts["platform.wsl"] = f"wsl{shown[2].group('a') or shown[2].group('b')}"
            note_source(sources, ("platform.wsl",), shown[0], shown[1])
    mac = next(
        (
            (no, line)
            for no, line in enumerate(lines, start=1)
            if MAC_TEXT.search(line[:MAX_LINE]) or MAC_PROMPT.search(line[:MAX_LINE])
        ),
        None,
    )
    mac = mac or apple_said(lines)  # "on an M1", MPS answering True: a Mac without the word
    if mac and "host.os" not in facts and not any(LINUX_TEXT.search(line[:MAX_LINE]) for line in lines):
        facts["host.os"] = "Darwin"
        note_source(sources, ("host.os",), *mac)
        chip = next(
            (
                (no, line)
                for no, line in enumerate(lines, start=1)
                if APPLE_SILICON.search(line[:MAX_LINE]) or chip_said(line)
            ),
            None,
        )
        if chip:
            facts["host.machine"] = "arm64"
            note_source(sources, ("host.machine",), *chip)
    chip = next(((no, line) for no, line in enumerate(lines, start=1) if APPLE_CHIP.search(line[:MAX_LINE])), None)
    x86 = next(((no, line) for no, line in enumerate(lines, start=1) if MAC_X86.search(line[:MAX_LINE])), None)
    said = next(((no, line) for no, line in enumerate(lines, start=1) if ROSETTA.search(line[:MAX_LINE])), None)
    if said or (chip and x86):
        facts["platform.rosetta"] = True
        facts["host.os"] = "Darwin"
        facts["python.machine"] = "x86_64"
        for hit in (said, chip, x86):
            if hit is not None:
                note_source(sources, ("platform.rosetta", "python.machine"), *hit)
    return facts


def gather(lines: list[str], skip: set[int], sources: Sources | None = None) -> dict[str, Any]:
    """Every fact the non-collect_env parts of a paste state; the first source to state a fact wins.
    ``sources`` receives the line that stated each fact (1-based number, text)."""
    sources = {} if sources is None else sources
    facts: dict[str, Any] = {}
    for part in (
        repl_facts(lines, sources),
        python_c_facts(lines, sources),
        fork_facts(lines, sources),
        lightning_facts(lines, sources),
        env_table_facts(lines, skip, sources),
        xformers_facts(lines, sources),
        report_facts(lines, sources),
        install_facts(lines, sources),
        nvidia_smi_facts(lines, skip, sources),
        platform_facts(lines, sources),
        mig_facts(lines, sources),
        scheduler_facts(lines, sources),
        python_arch_facts(lines, sources),
        build_facts(lines, sources),
    ):
        for key, value in part.items():
            facts.setdefault(key, value)
    mentioned = mention_facts(lines, sources)
    if "torch.version" in facts:  # a version stated by a tool's own output beats one mentioned in passing
        mentioned = {k: v for k, v in mentioned.items() if k not in ("torch.version", "torch.cuda_build")}
    for key, value in mentioned.items():
        facts.setdefault(key, value)
    windows_pypi_build(facts, lines, sources)
    for key, value in pypi_aarch64_build(lines, facts, sources).items():
        facts.setdefault(key, value)
    return facts
