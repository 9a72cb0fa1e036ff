"""Robustness of the kernel-log and REPL readers (issue #14): the same cause pasted by the next user.

Each variant restates a corpus text of kind ``kernel_log`` or ``repl`` (``base``: its file in tests/data/errors) the
way another user pastes the SAME problem. Kernel logs: dmesg with and without its ``[uptime]``, ``dmesg -T``,
journalctl ``-k``/``-b``/``-o short-iso``, /var/log/kern.log's double prefix, another driver branch, GPU, PCI
address or Xid, open vs proprietary module, Secure Boot and DKMS lines around the failure, unrelated kernel noise in
between, a paste cut at its start. REPLs: ``>>>``/``...``, IPython ``In [n]:``/``Out[n]:``, Jupyter's
``Cell In[n], line 1`` / ``----> 1`` tracebacks, ``python -c`` one-liners, version/cuda/is_available prints in
another order, torch's ``UserWarning: CUDA initialization:`` before the answer, PowerShell and conda prompts.

Every message is written from the program that prints it (``why`` names it: NVIDIA/open-gpu-kernel-modules'
kernel-open/nvidia/nv.c, nv-pci.c, osapi.c, nverror.h; the kernel's module loader and module_signing; kmod's
modprobe; torch/cuda/__init__.py and c10/cuda/CUDAFunctions.cpp), not from what gpuassist's patterns accept. Decoys
use the same formats for a healthy boot, a healthy REPL or another device: they must claim no error. The texts are
written here, not taken from a thread.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


class Variant(NamedTuple):
    name: str
    expect: str
    base: str  # the corpus text (tests/data/errors) whose cause this restates
    why: str  # what differs, and where the format comes from
    text: str


class Decoy(NamedTuple):
    name: str
    why: str
    text: str
    banned: tuple[str, ...] = ()


V = Variant
D = Decoy


def _log(prefix: str, lines: tuple[str, ...], **values: str) -> str:
    """One kernel message the way a collector prints it: every line with the prefix (dmesg prints one printk
    per driver line, each with its own timestamp)."""
    return "".join(f"{prefix}{line.format(**values)}\n" for line in lines)


# kernel-open/nvidia/nv.c, nv_pci_probe: a GPU the open module cannot drive (no GSP)
NO_GSP = (
    "NVRM: The NVIDIA GPU {pci} (PCI ID: {pciid})",
    "NVRM: installed in this system is not supported by open",
    "NVRM: nvidia.ko because it does not include the required GPU",
    "NVRM: System Processor (GSP).",
    "NVRM: Please see the 'Open Linux Kernel Modules' and 'GSP",
    "NVRM: Firmware' sections in the driver README, available on",
    "NVRM: the Linux graphics driver download page at",
    "NVRM: www.nvidia.com.",
)
# nv.c, nv_print_legacy_gpu: a GPU the branch dropped
LEGACY = (
    "NVRM: The NVIDIA {gpu} GPU installed in this system is",
    "NVRM:  supported through the NVIDIA {branch}.xx Legacy drivers. Please",
    "NVRM:  visit http://www.nvidia.com/object/unix.html for more",
    "NVRM:  information.  The {driver} NVIDIA driver will ignore",
    "NVRM:  this GPU.  Continuing probe...",
)
# nv.c: a GPU the proprietary module does not drive (Blackwell and later)
NEEDS_OPEN = (
    "NVRM: The NVIDIA GPU {pci} (PCI ID: {pciid})",
    "NVRM: installed in this system requires use of the NVIDIA open kernel modules.",
)
# nv.c, nvidia_probe: another driver holds the device
PROBE_NOT_CALLED = (
    "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
    "NVRM: This can occur when a driver such as: ",
    "NVRM: nouveau, rivafb, nvidiafb or rivatv ",
    "NVRM: was loaded and obtained ownership of the NVIDIA device(s).",
    "NVRM: Try unloading the conflicting kernel module (and/or",
    "NVRM: reconfigure your kernel without the conflicting",
    "NVRM: driver(s)), then try loading the NVIDIA kernel module",
    "NVRM: again.",
    "NVRM: No NVIDIA devices probed.",
)
HEALTHY_BOOT = (
    "nvidia: loading out-of-tree module taints kernel.",
    "nvidia: module license 'NVIDIA' taints kernel.",
    "nvidia: module verification failed: signature and/or required key missing - tainting kernel",
    "nvidia-nvlink: Nvlink Core is being initialized, major device number 236",
    "nvidia 0000:01:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem,decodes=none:owns=io+mem",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024",
    "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.120  "
    "Fri Sep 13 09:55:19 UTC 2024",
    "[drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
    "[drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1",
    "nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting taint.",
    "nvidia-uvm: Loaded the UVM driver, major device number 508.",
)
# torch/cuda/__init__.py's warnings.warn of c10/cuda/CUDAFunctions.cpp's message; the source line follows it
TOO_OLD_WARNING = (
    "{path}:{line}: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version "
    "{found}). Please update your GPU driver by downloading and installing a new version from the URL: "
    "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version "
    "that has been compiled with your version of the CUDA driver. (Triggered internally at "
    "../c10/cuda/CUDAFunctions.cpp:108.)\n  return torch._C._cuda_getDeviceCount() > 0\n"
)
UNKNOWN_ERROR_WARNING = (
    "{path}:{line}: UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up "
    "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices "
    "to be zero. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n"
    "  return torch._C._cuda_getDeviceCount() > 0\n"
)
LINUX_TORCH = "/home/ana/miniconda3/envs/dl/lib/python3.10/site-packages/torch/cuda/__init__.py"
WIN_TORCH = r"C:\Users\ana\AppData\Local\Programs\Python\Python311\Lib\site-packages\torch\cuda\__init__.py"
PY_BANNER = (
    "Python 3.10.14 (main, May  6 2024, 19:42:50) [GCC 11.2.0] on linux\n"
    'Type "help", "copyright", "credits" or "license" for more information.\n'
)
IPY_BANNER = (
    "Python 3.11.9 | packaged by conda-forge | (main, Apr 19 2024, 18:36:13) [GCC 12.3.0]\n"
    "Type 'copyright', 'credits' or 'license' for more information\n"
    "IPython 8.24.0 -- An enhanced Interactive Python. Type '?' for help.\n\n"
)
JUPYTER_RULE = "-" * 75

KERNEL_VARIANTS = [
    # ------------------------------------------------ gpu_xid_fault
    V(
        "xid79-dmesg-unknown-pid-550",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "plain dmesg; r550 prints pid='<unknown>', name=<unknown> when no process is on the channel (osapi.c)",
        "[ 8123.456789] NVRM: GPU at PCI:0000:41:00: GPU-3f1a2b4c-5d6e-7f80-91a2-b3c4d5e6f708\n"
        "[ 8123.456795] NVRM: GPU Board Serial Number: 1321721012345\n"
        "[ 8123.456801] NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
        "[ 8123.456810] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n",
    ),
    V(
        "xid79-dmesg-T-390-no-pid",
        "gpu_xid_fault",
        "wilicc-gpu-burn-1-dmesg-surprise-down-xid79.txt",
        "dmesg -T; the 390 branch printed the Xid without pid/name and 'GPU at <bdf> has fallen off the bus.'",
        "[Tue Mar  5 10:11:12 2024] pcieport 0000:00:01.1: AER: Uncorrected (Fatal) error received: 0000:00:01.1\n"
        "[Tue Mar  5 10:11:12 2024] NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus.\n"
        "[Tue Mar  5 10:11:12 2024] NVRM: GPU at 0000:02:00.0 has fallen off the bus.\n"
        "[Tue Mar  5 10:11:12 2024] NVRM: A GPU crash dump has been created. If possible, please run\n"
        "                           NVRM: nvidia-bug-report.sh as root to collect this data before\n"
        "                           NVRM: the NVIDIA kernel module is unloaded.\n",
    ),
    V(
        "xid79-kern-log-interleaved-noise",
        "gpu_xid_fault",
        "illinois-scicomp-machine-shop-maintenance-80-dmesg-xid79-titan-v-hot.txt",
        "/var/log/kern.log: rsyslog's prefix before the kernel's [uptime], unrelated network and usb lines between",
        "Mar  5 10:11:12 gpu-node01 kernel: [ 8123.400001] igb 0000:05:00.0 eno1: igb: eno1 NIC Link is Up 1000 Mbps\n"
        "Mar  5 10:11:12 gpu-node01 kernel: [ 8123.456801] NVRM: Xid (PCI:0000:41:00): 79, pid=2231, name=python3, "
        "GPU has fallen off the bus.\n"
        "Mar  5 10:11:12 gpu-node01 kernel: [ 8123.456900] usb 1-4: USB disconnect, device number 3\n"
        "Mar  5 10:11:12 gpu-node01 kernel: [ 8123.456910] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n",
    ),
    V(
        "xid48-journal-short-iso",
        "gpu_xid_fault",
        "NVIDIA-nvidia-docker-849-xid48-double-bit-ecc-page-retired.txt",
        "journalctl -k -o short-iso; a V100 at another address; the r535 pid/name fields (nverror.h: 48 is DBE)",
        "2024-03-05T10:11:12+0000 dgx02 kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', name=<unknown>, "
        "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, "
        "subpartition 0.\n"
        "2024-03-05T10:11:13+0000 dgx02 kernel: NVRM: Xid (PCI:0000:3b:00): 63, pid='<unknown>', name=<unknown>, "
        "Dynamic Page Retirement: New page retired, reboot to activate (0x00000000003a11c2).\n",
    ),
    V(
        "rminitadapter-new-format-journal",
        "gpu_xid_fault",
        "microsoft-pai-4344-k8s-node-rminitadapter-failed-gpu-missing.txt",
        "journalctl -b; r525+ prefix 'GPU <bdf>:' and 'rm_init_adapter failed, device minor number N' (osinit.c)",
        "Mar 05 10:11:12 node7 kernel: NVRM: GPU 0000:65:00.0: RmInitAdapter failed! (0x26:0x56:1474)\n"
        "Mar 05 10:11:12 node7 kernel: NVRM: GPU 0000:65:00.0: rm_init_adapter failed, device minor number 2\n"
        "Mar 05 10:11:13 node7 kernel: NVRM: GPU 0000:65:00.0: RmInitAdapter failed! (0x26:0x56:1474)\n"
        "Mar 05 10:11:13 node7 kernel: NVRM: GPU 0000:65:00.0: rm_init_adapter failed, device minor number 2\n",
    ),
    V(
        "rminitadapter-cut-at-start",
        "gpu_xid_fault",
        "microsoft-pai-4344-k8s-node-rminitadapter-failed-gpu-missing.txt",
        "a dmesg selection that starts mid-timestamp, old 'for device bearing minor number' wording",
        "412.118] NVRM: RmInitAdapter failed! (0x25:0x65:1457)\n"
        "[  412.118542] NVRM: rm_init_adapter failed for device bearing minor number 1\n",
    ),
    # ------------------------------------------------ nvidia_module_not_loaded
    V(
        "secure-boot-lockdown-dmesg",
        "nvidia_module_not_loaded",
        "acidanthera-bugtracker-2237-key-rejected-secure-boot.txt",
        "the kernel's lockdown line (security/lockdown) before kmod's modprobe error for the unsigned module",
        "$ sudo modprobe nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
        "$ sudo dmesg | tail -3\n"
        "[  301.220145] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n"
        "[  301.221002] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n",
    ),
    V(
        "secure-boot-systemd-modules-load",
        "nvidia_module_not_loaded",
        "acidanthera-bugtracker-2237-key-rejected-secure-boot.txt",
        "journalctl -b: systemd-modules-load's 'Failed to insert module' with EKEYREJECTED's strerror",
        "Mar 05 10:11:12 fedora systemd-modules-load[612]: Failed to insert module 'nvidia': Key was rejected by "
        "service\n"
        "Mar 05 10:11:12 fedora systemd[1]: Finished systemd-modules-load.service - Load Kernel Modules.\n"
        "Mar 05 10:11:20 fedora akmods[1102]: Checking kmods exist for 6.7.6-200.fc39.x86_64[  OK  ]\n",
    ),
    V(
        "probe-not-called-dmesg-T",
        "nvidia_module_not_loaded",
        "mattshma-bigdata-133-dmesg-probe-routine-not-called.txt",
        "dmesg -T, every nv.c line with its own timestamp, nouveau's own lines before it",
        "[Tue Mar  5 10:11:10 2024] nouveau 0000:01:00.0: NVIDIA TU106 (166000a1)\n"
        + _log("[Tue Mar  5 10:11:12 2024] ", PROBE_NOT_CALLED),
    ),
    V(
        "version-magic-ubuntu-modprobe",
        "nvidia_module_not_loaded",
        "negativo17-nvidia-driver-97-fedora31-version-magic-exec-format-error.txt",
        "Ubuntu kernels' vermagic (module.c check_modinfo) and kmod's ENOEXEC after a kernel update",
        "$ sudo modprobe nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': Exec format error\n"
        "$ dmesg | tail -1\n"
        "[   95.338120] nvidia: version magic '6.5.0-14-generic SMP preempt mod_unload modversions ' should be "
        "'6.8.0-40-generic SMP preempt mod_unload modversions '\n",
    ),
    V(
        "disagrees-about-module-layout",
        "nvidia_module_not_loaded",
        "negativo17-nvidia-driver-97-fedora31-version-magic-exec-format-error.txt",
        "modversions' 'disagrees about version of symbol module_layout' (module.c) for a module of another kernel",
        "[   14.002211] nvidia: disagrees about version of symbol module_layout\n"
        "$ sudo modprobe nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': Exec format error\n",
    ),
    V(
        "uvm-unknown-symbol-other-kernel",
        "nvidia_module_not_loaded",
        "AOSC-Dev-aosc-os-abbs-2594-nvidia-uvm-unknown-symbol-kernel-5-9.txt",
        "the module loader's 'Unknown symbol <name> (err -2)' for another symbol, dmesg -T",
        "[Sat Nov 14 12:01:02 2020] nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting taint.\n"
        "[Sat Nov 14 12:01:02 2020] nvidia_uvm: Unknown symbol __cpu_online_mask (err -2)\n",
    ),
    V(
        "uvm-no-such-device-modprobe",
        "nvidia_module_not_loaded",
        "NixOS-nixpkgs-267335-journalctl-nvidia-uvm-no-such-device.txt",
        "kmod's own wording of ENODEV for nvidia_uvm (modprobe instead of systemd-modules-load)",
        "$ sudo modprobe nvidia-uvm\nmodprobe: ERROR: could not insert 'nvidia_uvm': No such device\n",
    ),
    V(
        "settings-autostart-driver-not-loaded-other-host",
        "nvidia_module_not_loaded",
        "pop-os-pop-690-dkms-update-nvidia-driver-not-loaded.txt",
        "journalctl -b on another host; nvidia-settings' 'ERROR: NVIDIA driver is not loaded' after a DKMS rebuild",
        "Feb 02 08:01:10 thinkpad dkms[912]: nvidia/545.29.06 autoinstall on 6.6.10-76060610-generic failed\n"
        "Feb 02 08:01:31 thinkpad nvidia-settings-autostart.desktop[2431]: ERROR: NVIDIA driver is not loaded\n",
    ),
    # ------------------------------------------------ driver_does_not_support_gpu
    V(
        "open-module-no-gsp-dmesg-each-line-stamped",
        "driver_does_not_support_gpu",
        "negativo17-nvidia-driver-158-gt1030-open-module-no-gsp.txt",
        "plain dmesg (one timestamp per printk line), a GTX 1080 (10de:1b80), nv-pci.c's probe failure after it",
        _log("[    4.512301] ", NO_GSP, pci="0000:01:00.0", pciid="10de:1b80")
        + "[    4.512390] nvidia 0000:01:00.0: probe with driver nvidia failed with error -1\n"
        "[    4.512420] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
        "[    4.512421] NVRM: None of the NVIDIA devices were initialized.\n",
    ),
    V(
        "open-module-no-gsp-journal-k",
        "driver_does_not_support_gpu",
        "pop-os-pop-3859-gtx-1050-mobile-580-open-no-gsp-dmesg.txt",
        "journalctl -k: prefix on every line, a Tesla P4 (10de:1bb3) at another address",
        _log("Mar 05 10:11:12 truenas kernel: ", NO_GSP, pci="0000:82:00.0", pciid="10de:1bb3"),
    ),
    V(
        "legacy-470-k80-dmesg-each-line-stamped",
        "driver_does_not_support_gpu",
        "charmed-kubernetes-kubernetes-docs-647-p2-xlarge-k80-470-legacy-driver-ignores-gpu.txt",
        "dmesg with a timestamp on each nv.c line; a Tesla K80 dropped after 470",
        _log("[    3.204411] ", LEGACY, gpu="Tesla K80", branch="470", driver="535.161.07")
        + "[    3.204499] NVRM: No NVIDIA GPU found.\n",
    ),
    V(
        "legacy-340-kern-log",
        "driver_does_not_support_gpu",
        "negativo17-nvidia-driver-30-geforce-320m-legacy-340-tainted.txt",
        "/var/log/kern.log (rsyslog) with the kernel's [uptime] on each line; a GeForce 9600 GT on the 390 branch",
        _log(
            "Jan 12 19:20:01 oldbox kernel: [    9.100200] ",
            LEGACY,
            gpu="GeForce 9600 GT",
            branch="340",
            driver="390.157",
        ),
    ),
    V(
        "legacy-580-cut-at-start",
        "driver_does_not_support_gpu",
        "NixOS-nixos-hardware-1828-journal-gtx1050-legacy-580.txt",
        "a paste cut before the GPU's name: the branch and 'will ignore this GPU' are what is left",
        "                              NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please\n"
        "                              NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
        "                              NVRM:  information.  The 590.44.01 NVIDIA driver will ignore\n"
        "                              NVRM:  this GPU.  Continuing probe...\n"
        "Dec 01 09:00:01 nixos kernel: NVRM: No NVIDIA GPU found.\n",
    ),
    V(
        "needs-open-modules-dmesg-rtx5090",
        "driver_does_not_support_gpu",
        "awslabs-amazon-eks-ami-2769-g7-blackwell-2c3a-requires-open-kernel-modules.txt",
        "dmesg with timestamps; an RTX 5090 (10de:2b85) under the proprietary 570 module",
        "[    5.100001] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.04  Fri Feb 21 18:47:28 UTC 2025\n"
        + _log("[    5.201233] ", NEEDS_OPEN, pci="0000:01:00.0", pciid="10de:2b85")
        + "[    5.201300] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:897)\n"
        "[    5.201310] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n",
    ),
]

KERNEL_DECOYS = [
    D(
        "healthy-boot-dmesg",
        "a 550 boot where the module loads, tainting and unsigned-module lines included (no failure)",
        _log("[    2.9{n}] ", HEALTHY_BOOT).replace("{n}", "00001"),
    ),
    D(
        "healthy-boot-journal-open-module",
        "journalctl -b: the open module loading, persistenced starting",
        "Mar 05 10:11:12 ws kernel: NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build "
        " (dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:42:42 UTC 2024\n"
        "Mar 05 10:11:12 ws kernel: nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  "
        "560.35.03  Release Build  (dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:21:48 UTC 2024\n"
        "Mar 05 10:11:13 ws systemd[1]: Starting nvidia-persistenced.service - NVIDIA Persistence Daemon...\n"
        "Mar 05 10:11:13 ws nvidia-persistenced[988]: Verbose syslog connection opened\n"
        "Mar 05 10:11:13 ws nvidia-persistenced[988]: Started (988)\n"
        "Mar 05 10:11:13 ws nvidia-persistenced[988]: device 0000:01:00.0 - registered\n"
        "Mar 05 10:11:13 ws systemd[1]: Started nvidia-persistenced.service - NVIDIA Persistence Daemon.\n",
        ("gpu_xid_fault", "nvidia_module_not_loaded"),
    ),
    D(
        "dkms-install-completed",
        "a DKMS build that succeeded before a healthy boot",
        "Building module:\nCleaning build area...\n"
        "'make' -j16 NV_EXCLUDE_BUILD_MODULES='' KERNEL_UNAME=6.8.0-40-generic "
        "modules....\nSigning module /var/lib/dkms/nvidia/550.120/build/nvidia.ko\nCleaning build area...\n\n"
        "nvidia.ko:\nRunning module version sanity check.\n - Original module\n   - No original module exists "
        "within this kernel\n - Installation\n   - Installing to /lib/modules/6.8.0-40-generic/updates/dkms/\n"
        "depmod...\n",
    ),
    D(
        "amdgpu-reset-not-nvidia",
        "another vendor's GPU reset in dmesg: no NVIDIA fault",
        "[ 8123.456801] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
        "[ 8123.900000] amdgpu 0000:03:00.0: amdgpu: GPU reset succeeded, trying to resume\n"
        "[ 8124.100000] [drm] VRAM is lost due to GPU reset!\n",
        ("gpu_xid_fault",),
    ),
    D(
        "pcie-aer-corrected-noise",
        "corrected PCIe errors on the NVIDIA GPU's port while it keeps working: no Xid, no fault",
        "[  511.201001] pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0\n"
        "[  511.201010] nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
        "(Receiver ID)\n"
        "[  511.201015] nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000\n"
        "[  511.201020] nvidia 0000:01:00.0:    [ 0] RxErr                  (First)\n",
        ("gpu_xid_fault",),
    ),
    D(
        "secure-boot-disabled-healthy",
        "the EFI's Secure Boot state and a tainting module that loaded: nothing was rejected",
        "[    0.000000] secureboot: Secure boot disabled\n"
        "[    2.846803] nvidia: module verification failed: signature and/or required key missing - tainting kernel\n"
        "[    3.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n",
    ),
]

REPL_VARIANTS = [
    # ------------------------------------------------ driver_too_old
    V(
        "too-old-ipython-warning-out",
        "driver_too_old",
        "googlecolab-colabtools-1773-reinstalled-torch-driver-too-old-10010.txt",
        "IPython In/Out prompts; torch 2.x's warnings.warn line before Out[2]",
        IPY_BANNER
        + "In [1]: import torch\n\nIn [2]: torch.cuda.is_available()\n"
        + TOO_OLD_WARNING.format(path=LINUX_TORCH, line=118, found="11040")
        + "Out[2]: False\n",
    ),
    V(
        "too-old-python-c-one-line-print",
        "driver_too_old",
        "googlecolab-colabtools-1773-reinstalled-torch-driver-too-old-10010.txt",
        "python -c printing version, cuda and is_available on one line after the warning; conda prompt",
        '(dl) ana@box:~$ python -c "import torch; print(torch.__version__, torch.version.cuda, '
        'torch.cuda.is_available())"\n'
        + TOO_OLD_WARNING.format(path=LINUX_TORCH, line=129, found="11060")
        + "2.4.1+cu124 12.4 False\n",
    ),
    V(
        "too-old-powershell-repl",
        "driver_too_old",
        "googlecolab-colabtools-1773-reinstalled-torch-driver-too-old-10010.txt",
        "PowerShell prompt, Windows path in the warning, >>> answers",
        "PS C:\\Users\\ana> python\n"
        "Python 3.11.9 (tags/v3.11.9:de54cf5, Apr  2 2024, 10:12:12) [MSC v.1938 64 bit (AMD64)] on win32\n"
        'Type "help", "copyright", "credits" or "license" for more information.\n'
        ">>> import torch\n>>> torch.cuda.is_available()\n"
        + TOO_OLD_WARNING.format(path=WIN_TORCH, line=138, found="11070")
        + "False\n>>> torch.__version__\n'2.3.1+cu121'\n",
    ),
    V(
        "too-old-jupyter-cell-runtimeerror",
        "driver_too_old",
        "pytorch-696-repl-driver-too-old-7050.txt",
        "Jupyter/IPython 8 traceback: 'Cell In[3], line 1', '----> 1', _lazy_init raising the message",
        JUPYTER_RULE + "\n"
        "RuntimeError                              Traceback (most recent call last)\n"
        "Cell In[3], line 1\n"
        "----> 1 x = torch.ones(3).cuda()\n\n"
        "File ~/miniconda3/envs/dl/lib/python3.10/site-packages/torch/cuda/__init__.py:314, in _lazy_init()\n"
        '    310 if "CUDA_MODULE_LOADING" not in os.environ:\n'
        '    311     os.environ["CUDA_MODULE_LOADING"] = "LAZY"\n'
        "--> 314 torch._C._cuda_init()\n\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
        "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
        "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
        "version of the CUDA driver.\n",
    ),
    # ------------------------------------------------ gpu_arch_too_new_for_build
    V(
        "no-kernel-image-repl-names-gpu-and-capability",
        "gpu_arch_too_new_for_build",
        "pytorch-149845-rtx5090d-repl-no-kernel-image.txt",
        "the same REPL with the user's own get_device_name/get_device_capability answers (an RTX 5080)",
        ">>> import torch\n>>> torch.cuda.get_device_name(0)\n'NVIDIA GeForce RTX 5080'\n"
        ">>> torch.cuda.get_device_capability(0)\n(12, 0)\n"
        ">>> torch.randn(4, device='cuda') * 2\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
        "be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
    ),
    V(
        "sm120-warning-ipython",
        "gpu_arch_too_new_for_build",
        "pytorch-160804-rtx5090-torch220-cu121-not-detected.txt",
        "torch/cuda/__init__.py's capability warning (_check_capability) printed in IPython before Out[2]",
        "In [1]: import torch\n\nIn [2]: torch.zeros(1).cuda()\n"
        f"{LINUX_TORCH}:230: UserWarning: \n"
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
        "If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/\n\n"
        '  warnings.warn(incompatible_device_warn.format(device_name, capability, " ".join(arch_list), '
        "device_name))\n"
        "Out[2]: tensor([0.], device='cuda:0')\n",
    ),
    # ------------------------------------------------ uvm_wedged_after_suspend
    V(
        "error-999-modern-warning-after-suspend",
        "uvm_wedged_after_suspend",
        "pytorch-pytorch-43281-idle-machine-error-999-repl.txt",
        "torch >= 1.8 prints error 999 as 'CUDA unknown error' in the init warning; the user says it was after suspend",
        "After the laptop wakes from suspend torch stops seeing the GPU until I reboot:\n"
        ">>> import torch\n>>> torch.cuda.is_available()\n"
        + UNKNOWN_ERROR_WARNING.format(path=LINUX_TORCH, line=128)
        + "False\n",
    ),
    V(
        "error-30-ipython",
        "uvm_wedged_after_suspend",
        "facebookresearch-maskrcnn-benchmark-238-cuda-init-error-30-unknown-reboot.txt",
        "IPython traceback of the same THC-era error 30 ('<ipython-input-2-...>' of IPython 7)",
        "In [2]: torch.cuda.current_device()\n"
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=51 error=30 : unknown error\n"
        + JUPYTER_RULE
        + "\nRuntimeError                              Traceback (most recent call last)\n"
        "<ipython-input-2-3380d2c12118> in <module>\n"
        "----> 1 torch.cuda.current_device()\n\n"
        "~/anaconda3/lib/python3.7/site-packages/torch/cuda/__init__.py in _lazy_init()\n"
        '    161         "Cannot re-initialize CUDA in forked subprocess. " + msg)\n'
        "--> 162     torch._C._cuda_init()\n\n"
        "RuntimeError: cuda runtime error (30) : unknown error at /pytorch/aten/src/THC/THCGeneral.cpp:51\n",
    ),
    # ------------------------------------------------ torch_import_error
    V(
        "winerror-126-powershell-python-c",
        "torch_import_error",
        "pytorch-pytorch-39980-import-torch-winerror-126-vc-redist.txt",
        "PowerShell python -c; torch >= 2's 'Error loading \"...c10.dll\" or one of its dependencies.' (__init__.py)",
        'PS C:\\Users\\ana> python -c "import torch"\n'
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\torch\\__init__.py",'
        " line 148, in <module>\n"
        "    raise err\n"
        "OSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\torch\\lib\\c10.dll" or '
        "one of its dependencies.\n",
    ),
    V(
        "undefined-symbol-cusparse-ipython",
        "torch_import_error",
        "pytorch-pytorch-90673-repl-conda-libcusparse-12-undefined-symbol.txt",
        "a notebook: the %conda magic that installed it, then IPython 8's 'Cell In[2], line 1' traceback",
        "In [1]: %conda install pytorch torchvision torchaudio pytorch-cuda=11.7 -c pytorch -c nvidia\n\n"
        "In [2]: import torch\n" + JUPYTER_RULE + "\n"
        "ImportError                               Traceback (most recent call last)\n"
        "Cell In[2], line 1\n----> 1 import torch\n\n"
        "File ~/miniconda3/envs/pt113/lib/python3.9/site-packages/torch/__init__.py:191\n"
        "    190     if USE_GLOBAL_DEPS:\n"
        "    191         _load_global_deps()\n"
        "--> 192     from torch._C import *  # noqa: F403\n\n"
        "ImportError: /home/ana/miniconda3/envs/pt113/lib/python3.9/site-packages/torch/lib/libtorch_cuda_cu.so: "
        "undefined symbol: cusparseSpSM_analysis, version libcusparse.so.11\n",
    ),
    # ------------------------------------------------ cuda_out_of_memory
    V(
        "oom-ipython-modern-message",
        "cuda_out_of_memory",
        "pytorch-27600-repl-oom-not-freed.txt",
        "torch >= 2.1's OutOfMemoryError text (c10/cuda/CUDACachingAllocator.cpp) in an IPython traceback",
        "In [7]: y = model(x)\n" + JUPYTER_RULE + "\n"
        "OutOfMemoryError                          Traceback (most recent call last)\n"
        "Cell In[7], line 1\n----> 1 y = model(x)\n\n"
        "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB "
        "of which 1.19 GiB is free. Including non-PyTorch memory, this process has 22.43 GiB memory in use. Of the "
        "allocated memory 21.90 GiB is allocated by PyTorch, and 98.50 MiB is reserved by PyTorch but unallocated. "
        "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
        "avoid fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n",
    ),
    # ------------------------------------------------ scheduler_no_gpu_allocated
    V(
        "srun-python-c-false-login-true",
        "scheduler_no_gpu_allocated",
        "BLAST-AI-ML-synapse-199-srun-no-gpu-requested.txt",
        "shell prompts instead of comments; srun with a partition but no --gres/--gpus",
        "[ana@login01 ~]$ python -c 'import torch; print(torch.cuda.is_available())'\nTrue\n"
        "[ana@login01 ~]$ srun -p gpu -t 00:10:00 python -c 'import torch; print(torch.cuda.is_available())'\n"
        "srun: job 4417732 queued and waiting for resources\nsrun: job 4417732 has been allocated resources\n"
        "False\n",
    ),
    # ------------------------------------------------ macos_no_cuda_use_mps
    V(
        "mac-repl-not-compiled-with-cuda",
        "macos_no_cuda_use_mps",
        "donaldlab-OSPREY3-47-macbook-jcuda-not-initialized.txt",
        "a macOS REPL (banner 'on darwin') asking torch for CUDA",
        "Python 3.11.7 (main, Dec  4 2023, 18:10:11) [Clang 15.0.0 (clang-1500.1.0.2.5)] on darwin\n"
        'Type "help", "copyright", "credits" or "license" for more information.\n'
        ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n>>> torch.zeros(1).cuda()\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/Users/ana/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 284, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n",
    ),
    # ------------------------------------------------ stale_or_shadowed_torch
    V(
        "old-torch-found-user-site-ipython",
        "stale_or_shadowed_torch",
        "cloveranon-Clover-Edition-128-repl-old-torch-user-site.txt",
        "IPython: the version and __file__ show an old torch in ~/.local after the user reinstalled",
        "I reinstalled torch 2.3 but python still finds an old one:\n"
        "In [1]: import torch\n\nIn [2]: torch.__version__\nOut[2]: '1.4.0'\n\n"
        "In [3]: torch.__file__\nOut[3]: '/home/ana/.local/lib/python3.8/site-packages/torch/__init__.py'\n",
    ),
    # ------------------------------------------------ cpu_only_build
    V(
        "cpu-wheel-repl-version-cpu-suffix",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "the REPL's own answers name the CPU wheel: '+cpu' and torch.version.cuda None",
        ">>> import torch\n>>> torch.__version__\n'2.3.1+cpu'\n>>> print(torch.version.cuda)\nNone\n"
        ">>> torch.cuda.is_available()\nFalse\n",
    ),
    V(
        "cpu-wheel-python-c-other-order",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "python -c printing is_available, cuda, version in that order; conda prompt",
        '(base) ana@box:~$ python -c "import torch; print(torch.cuda.is_available()); print(torch.version.cuda); '
        'print(torch.__version__)"\nFalse\nNone\n2.5.0+cpu\n',
    ),
]

REPL_DECOYS = [
    D(
        "healthy-ipython",
        "IPython: version, CUDA, is_available True, two devices, a name",
        IPY_BANNER + "In [1]: import torch\n\nIn [2]: torch.__version__, torch.version.cuda\n"
        "Out[2]: ('2.4.1+cu124', '12.4')\n\nIn [3]: torch.cuda.is_available()\nOut[3]: True\n\n"
        "In [4]: torch.cuda.device_count()\nOut[4]: 2\n\n"
        "In [5]: torch.cuda.get_device_name(0)\nOut[5]: 'NVIDIA RTX A6000'\n",
    ),
    D(
        "healthy-python-c-other-order",
        "python -c printing is_available, count, cuda, version on one line",
        '$ python -c "import torch; print(torch.cuda.is_available(), torch.cuda.device_count(), torch.version.cuda, '
        'torch.__version__)"\nTrue 1 12.1 2.3.0+cu121\n',
    ),
    D(
        "healthy-repl-with-unrelated-warning",
        "a deprecation warning before a True answer is no CUDA problem",
        ">>> import torch\n"
        f"{LINUX_TORCH.replace('cuda/__init__.py', '_utils.py')}:831: UserWarning: TypedStorage is deprecated. "
        "It will be removed in the future and UntypedStorage will be the only storage class.\n"
        "  return self.fget.__get__(instance, owner)()\n"
        ">>> torch.cuda.is_available()\nTrue\n",
    ),
    D(
        "healthy-powershell-repl",
        "PowerShell REPL on Windows with a working GPU",
        "(venv) PS C:\\work> python\n"
        "Python 3.11.9 (tags/v3.11.9:de54cf5, Apr  2 2024, 10:12:12) [MSC v.1938 64 bit (AMD64)] on win32\n"
        ">>> import torch\n>>> print(torch.__version__)\n2.5.1+cu121\n>>> torch.cuda.is_available()\nTrue\n"
        ">>> torch.cuda.get_device_name()\n'NVIDIA GeForce RTX 3060'\n",
    ),
    D(
        "jupyter-shape-error-on-gpu",
        "a shape mismatch on a working GPU in a Jupyter cell: no install error",
        JUPYTER_RULE + "\nRuntimeError                              Traceback (most recent call last)\n"
        "Cell In[5], line 1\n----> 1 out = model(x.to('cuda'))\n\n"
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)\n",
    ),
]

MORE_KERNEL = [
    V(
        "xid79-journal-short-monotonic",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "journalctl -o short-monotonic: [uptime] then host and 'kernel:'",
        "[ 8123.456801] gpu-node01 kernel: NVRM: Xid (PCI:0000:41:00): 79, pid=2231, name=python3, "
        "GPU has fallen off the bus.\n"
        "[ 8123.456910] gpu-node01 kernel: NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n",
    ),
    V(
        "xid119-gsp-rpc-timeout-dmesg-T",
        "gpu_xid_fault",
        "NVIDIA-NVSentinel-155-dmesg-fallen-off-bus-no-xid.txt",
        "dmesg -T; r535+ GSP's Xid 119 'Timeout after 6s of waiting for RPC response from GPU0 "
        "GSP!' (nverror.h: GSP_RPC_TIMEOUT)",
        "[Wed Jun 12 03:14:15 2024] NVRM: Xid (PCI:0000:01:00): 119, pid=48210, name=python, "
        "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
        "(GSP_RM_CONTROL) (0x20802a02 0x8).\n"
        "[Wed Jun 12 03:14:21 2024] NVRM: Xid (PCI:0000:01:00): 119, pid=48210, name=python, "
        "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 10 (FREE) "
        "(0x5c000001 0x0).\n",
    ),
    V(
        "rminitadapter-after-d3cold-journal",
        "gpu_xid_fault",
        "microsoft-pai-4344-k8s-node-rminitadapter-failed-gpu-missing.txt",
        "journalctl -k; the PCI core's 'Unable to change power state from D3cold to D0, device "
        "inaccessible' before RmInitAdapter",
        "Jun 02 22:01:44 rig kernel: nvidia 0000:0a:00.0: Unable to change power state from D3cold "
        "to D0, device inaccessible\n"
        "Jun 02 22:01:44 rig kernel: NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! "
        "(0x23:0x65:1426)\n"
        "Jun 02 22:01:44 rig kernel: NVRM: GPU 0000:0a:00.0: rm_init_adapter failed, device minor "
        "number 1\n",
    ),
    V(
        "secure-boot-udev-lockdown-at-boot",
        "nvidia_module_not_loaded",
        "acidanthera-bugtracker-2237-key-rejected-secure-boot.txt",
        "at boot udev loads the module, so lockdown names systemd-udevd and no modprobe error is "
        "printed; nvidia-smi's failure beside it",
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.\n"
        "\n"
        "$ sudo journalctl -b -k | grep -i -e nvidia -e lockdown\n"
        "Mar 05 10:11:09 ubuntu kernel: Lockdown: systemd-udevd: unsigned module loading is "
        "restricted; see man kernel_lockdown.7\n"
        "Mar 05 10:11:09 ubuntu kernel: Lockdown: systemd-udevd: unsigned module loading is "
        "restricted; see man kernel_lockdown.7\n",
    ),
    V(
        "secure-boot-pkcs7-required-key",
        "nvidia_module_not_loaded",
        "acidanthera-bugtracker-2237-key-rejected-secure-boot.txt",
        "older kernels' module_signing: 'PKCS#7 signature not signed with a trusted key' and "
        "kmod's ENOKEY 'Required key not available'",
        "[    4.118201] PKCS#7 signature not signed with a trusted key\n"
        "[    4.118290] PKCS#7 signature not signed with a trusted key\n"
        "# modprobe nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': Required key not available\n",
    ),
    V(
        "already-bound-to-nouveau-dmesg",
        "nvidia_module_not_loaded",
        "negativo17-nvidia-driver-73-fedora29-nouveau-bound-dmesg.txt",
        "nv-pci.c's 'GPU <bdf> is already bound to nouveau.' before the probe-routine message, "
        "continuation lines indented",
        "[    6.211002] NVRM: GPU 0000:01:00.0 is already bound to nouveau.\n"
        "[    6.211390] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
        "[    6.211391] NVRM: This can occur when a driver such as: \n"
        "               NVRM: nouveau, rivafb, nvidiafb or rivatv \n"
        "               NVRM: was loaded and obtained ownership of the NVIDIA device(s).\n"
        "[    6.211393] NVRM: No NVIDIA devices probed.\n",
    ),
    V(
        "not-supported-by-this-release-journal",
        "driver_does_not_support_gpu",
        "flatcar-Flatcar-1283-dmesg-p40-not-supported-535.txt",
        "journalctl -k with the prefix on every line; osapi.c's 'not supported by the NVIDIA "
        "<version> driver release' for a P100 under 580",
        "Mar 05 10:11:12 flatcar kernel: NVRM: The NVIDIA GPU 0000:00:1e.0 (PCI ID: 10de:1b38)\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: installed in this system is not supported by the\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: NVIDIA 580.95.05 driver release.\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: Please see 'Appendix A - Supported NVIDIA GPU "
        "Products'\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: in this release's README, available on the "
        "operating system\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: specific graphics driver download page at "
        "www.nvidia.com.\n"
        "Mar 05 10:11:12 flatcar kernel: nvidia: probe of 0000:00:1e.0 failed with error -1\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
        "Mar 05 10:11:12 flatcar kernel: NVRM: None of the NVIDIA devices were initialized.\n",
    ),
    V(
        "secure-boot-lockdown-eperm-mokutil",
        "nvidia_module_not_loaded",
        "acidanthera-bugtracker-2237-key-rejected-secure-boot.txt",
        "mokutil --sb-state, then kmod's EPERM: under lockdown module_sig_check returns -EPERM, not EKEYREJECTED",
        "$ mokutil --sb-state\n"
        "SecureBoot enabled\n"
        "$ sudo modprobe nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': Operation not permitted\n"
        "$ sudo dmesg | tail -n 2\n"
        "[  212.553019] Lockdown: modprobe: unsigned module loading is restricted; see man "
        "kernel_lockdown.7\n",
    ),
    V(
        "dkms-build-failed-then-module-not-found",
        "nvidia_module_not_loaded",
        "pop-os-pop-690-dkms-update-nvidia-driver-not-loaded.txt",
        "DKMS's 'Bad return status for module build' for a new kernel, then kmod's 'Module nvidia "
        "not found in directory'",
        "Building module:\n"
        "Cleaning build area...\n"
        "'make' -j8 NV_EXCLUDE_BUILD_MODULES='' KERNEL_UNAME=6.8.0-40-generic modules...(bad exit "
        "status: 2)\n"
        "Error! Bad return status for module build on kernel: 6.8.0-40-generic (x86_64)\n"
        "Consult /var/lib/dkms/nvidia/535.183.01/build/make.log for more information.\n"
        "$ sudo modprobe nvidia\n"
        "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-40-generic\n",
    ),
    V(
        "api-mismatch-journal-chinese-month",
        "driver_library_mismatch",
        "stackhpc-ansible-slurm-appliance-287-journal-api-mismatch.txt",
        "journalctl under a zh_CN locale ('3月 05'): the prefix repeated on each of osapi.c's four lines",
        "3月 05 10:11:12 ubuntu kernel: NVRM: API mismatch: the client has the version 550.107.02, "
        "but\n"
        "3月 05 10:11:12 ubuntu kernel: NVRM: this kernel module has the version 550.90.07.  Please\n"
        "3月 05 10:11:12 ubuntu kernel: NVRM: make sure that this kernel module and all NVIDIA "
        "driver\n"
        "3月 05 10:11:12 ubuntu kernel: NVRM: components have the same version.\n",
    ),
    V(
        "legacy-470-journal-german-month",
        "driver_does_not_support_gpu",
        "NixOS-nixos-hardware-1828-journal-gtx1050-legacy-580.txt",
        "journalctl under de_DE ('Mär 05'), continuation lines indented under the message; a GTX 760 under 550",
        "Mär 05 10:11:12 arbeitsplatz kernel: NVRM: The NVIDIA GeForce GTX 760 GPU installed in "
        "this system is\n"
        "                                     NVRM:  supported through the NVIDIA 470.xx Legacy "
        "drivers. Please\n"
        "                                     NVRM:  visit http://www.nvidia.com/object/unix.html "
        "for more\n"
        "                                     NVRM:  information.  The 550.78 NVIDIA driver will "
        "ignore\n"
        "                                     NVRM:  this GPU.  Continuing probe...\n"
        "Mär 05 10:11:12 arbeitsplatz kernel: NVRM: No NVIDIA GPU found.\n",
    ),
    V(
        "persistenced-unit-no-device-files",
        "nvidia_module_not_loaded",
        "pop-os-pop-690-dkms-update-nvidia-driver-not-loaded.txt",
        "journalctl -u nvidia-persistenced: 'Failed to query NVIDIA devices. Please ensure that "
        "the NVIDIA device files (/dev/nvidia*) exist' (nvidia-persistenced)",
        "$ journalctl -u nvidia-persistenced -b\n"
        "Mar 05 10:11:12 node3 systemd[1]: Starting nvidia-persistenced.service - NVIDIA "
        "Persistence Daemon...\n"
        "Mar 05 10:11:12 node3 nvidia-persistenced[1021]: Failed to query NVIDIA devices. Please "
        "ensure that the NVIDIA device files (/dev/nvidia*) exist, and that user 0 has read and "
        "write permissions for those files.\n"
        "Mar 05 10:11:12 node3 nvidia-persistenced[1021]: PID file unlocked.\n"
        "Mar 05 10:11:12 node3 nvidia-persistenced[1021]: Shutdown (1021)\n"
        "Mar 05 10:11:12 node3 systemd[1]: nvidia-persistenced.service: Control process exited, "
        "code=exited, status=1/FAILURE\n"
        "Mar 05 10:11:12 node3 systemd[1]: Failed to start nvidia-persistenced.service - NVIDIA "
        "Persistence Daemon.\n",
    ),
    V(
        "akmods-nvidia-kmod-failed-journal",
        "nvidia_module_not_loaded",
        "pop-os-pop-690-dkms-update-nvidia-driver-not-loaded.txt",
        "Fedora's akmods at boot (akmods 0.6: '[FAILED]' and 'Building rpms failed; see "
        "...failed.log for details'), DKMS's counterpart",
        "Mar 05 10:11:12 fedora akmods[1102]: Checking kmods exist for 6.9.4-200.fc40.x86_64[  OK  "
        "]\n"
        "Mar 05 10:11:40 fedora akmods[1102]: Building and installing nvidia-kmod[FAILED]\n"
        "Mar 05 10:11:40 fedora akmods[1102]: Building rpms failed; see "
        "/var/cache/akmods/nvidia/555.52.04-1-for-6.9.4-200.fc40.x86_64.failed.log for details\n"
        "Mar 05 10:11:41 fedora akmods[1102]: Hint: Some kmods were ignored or failed to build or "
        "install.\n",
    ),
    V(
        "xid95-154-kern-log-recovery-action",
        "gpu_xid_fault",
        "NVIDIA-nvidia-docker-849-xid48-double-bit-ecc-page-retired.txt",
        "kern.log double prefix; r550+ Xid 95 (uncontained ECC) and Xid 154 'GPU recovery action "
        "changed ... (Node Reboot Required)'",
        "Mar  5 10:11:12 node7 kernel: [ 8123.456801] NVRM: Xid (PCI:0000:ca:00): 95, pid=33120, "
        "name=python, Uncontained: FBHUB. RST: Yes, D-RST: No\n"
        "Mar  5 10:11:12 node7 kernel: [ 8123.456901] NVRM: Xid (PCI:0000:ca:00): 154, GPU "
        "recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n",
    ),
    V(
        "power-cables-rminitadapter-dmesg",
        "gpu_xid_fault",
        "microsoft-pai-4344-k8s-node-rminitadapter-failed-gpu-missing.txt",
        "osinit.c's 'GPU does not have the necessary power cables connected.' before RmInitAdapter "
        "(r525+ 'GPU <bdf>:' prefix)",
        "[    4.811903] NVRM: GPU 0000:01:00.0: GPU does not have the necessary power cables "
        "connected.\n"
        "[    4.812011] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x24:0x1c:1436)\n"
        "[    4.812120] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n",
    ),
    V(
        "aer-uncorrectable-fatal-dmesg-T-new-wording",
        "gpu_xid_fault",
        "rwth-i6-returnn-1500-dmesg-pcie-aer-fatal-nvidia-cant-recover.txt",
        "dmesg -T; kernel 6.x aer.c wording ('Uncorrectable (Fatal) error message received from', "
        "severity=Uncorrectable, no 'AER: ' before 'PCIe Bus Error') on the GPU itself",
        "[Thu Jan 18 14:02:11 2024] pcieport 0000:40:01.1: AER: Uncorrectable (Fatal) error "
        "message received from 0000:41:00.0\n"
        "[Thu Jan 18 14:02:11 2024] nvidia 0000:41:00.0: PCIe Bus Error: severity=Uncorrectable "
        "(Fatal), type=Inaccessible, (Unregistered Agent ID)\n"
        "[Thu Jan 18 14:02:11 2024] nvidia 0000:41:00.0: AER: can't recover (no error_detected "
        "callback)\n"
        "[Thu Jan 18 14:02:12 2024] pcieport 0000:40:01.1: AER: Root Port link has been reset (0)\n"
        "[Thu Jan 18 14:02:12 2024] pcieport 0000:40:01.1: AER: device recovery failed\n",
    ),
    V(
        "aer-fatal-on-root-port-journal",
        "gpu_xid_fault",
        "rwth-i6-returnn-1500-dmesg-pcie-aer-fatal-nvidia-cant-recover.txt",
        "journalctl -k: the fatal error logged on the root port, the nvidia device named only by "
        "err.c's 'can't recover (no error_detected callback)'",
        "Jan 18 14:02:11 node12 kernel: pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) "
        "error received: 0000:00:03.0\n"
        "Jan 18 14:02:11 node12 kernel: pcieport 0000:00:03.0: PCIe Bus Error: "
        "severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)\n"
        "Jan 18 14:02:11 node12 kernel: pcieport 0000:00:03.0:    [14] CmpltTO                "
        "(First)\n"
        "Jan 18 14:02:11 node12 kernel: nvidia 0000:03:00.0: AER: can't recover (no error_detected "
        "callback)\n"
        "Jan 18 14:02:11 node12 kernel: snd_hda_intel 0000:03:00.1: AER: can't recover (no "
        "error_detected callback)\n"
        "Jan 18 14:02:12 node12 kernel: pcieport 0000:00:03.0: AER: device recovery failed\n",
    ),
    V(
        "open-module-datacenter-only-515",
        "driver_does_not_support_gpu",
        "NVIDIA-open-gpu-kernel-modules-230-dmesg-open-module-datacenter-only.txt",
        "dmesg; r515 osinit.c's 'Open nvidia.ko is only ready for use on Data Center GPUs' and the "
        "RmInitAdapter that follows",
        "[    3.901234] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n"
        "[    3.901236] NVRM: To force use of Open nvidia.ko on other GPUs, see the\n"
        "[    3.901237] NVRM: 'OpenRmEnableUnsupportedGpus' kernel module parameter described\n"
        "[    3.901238] NVRM: in the README.\n"
        "[    3.901531] NVRM: GPU 0000:2b:00.0: RmInitAdapter failed! (0x1:0xffff:1219)\n"
        "[    3.901600] NVRM: GPU 0000:2b:00.0: rm_init_adapter failed, device minor number 0\n",
    ),
]

MORE_REPL = [
    V(
        "wsl-python-c-libcuda-missing-uname",
        "wsl_libcuda_problem",
        "microsoft-WSL-8587-repl-libcuda-so-missing.txt",
        "python -c one-liners under a conda prompt on WSL2: the init warning, ctypes failing on "
        "libcuda.so, uname -r naming the WSL2 kernel",
        '(pt) ana@DESKTOP-7QK2L:~$ python -c "import torch; print(torch.cuda.is_available())"\n'
        "/home/ana/miniconda3/envs/pt/lib/python3.11/site-packages/torch/cuda/__init__.py:128: "
        "UserWarning: CUDA initialization: CUDA driver initialization failed, you might not have a "
        "CUDA gpu. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
        "False\n"
        "(pt) ana@DESKTOP-7QK2L:~$ python -c \"import ctypes; ctypes.CDLL('libcuda.so')\"\n"
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/home/ana/miniconda3/envs/pt/lib/python3.11/ctypes/__init__.py", line 376, in '
        "__init__\n"
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: libcuda.so: cannot open shared object file: No such file or directory\n"
        "(pt) ana@DESKTOP-7QK2L:~$ uname -r\n"
        "5.15.153.1-microsoft-standard-WSL2\n",
    ),
    V(
        "ipython-shell-escape-smi-failed",
        "nvidia_module_not_loaded",
        "pop-os-pop-690-dkms-update-nvidia-driver-not-loaded.txt",
        "IPython's !nvidia-smi shell escape printing the driver-communication failure, then Out[5]: False",
        "In [4]: !nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.\n"
        "\n"
        "In [5]: torch.cuda.is_available()\n"
        "Out[5]: False\n",
    ),
    V(
        "yolov5-select-device-word-jupyter",
        "cuda_visible_devices_hides_gpus",
        "breezedeus-Pix2Text-18-repl-cnstd-select-device-cuda-unavailable-invalid-device-cuda.txt",
        "Jupyter; newer yolov5's wording of the same select_device assertion ('Invalid CUDA '--device gpu' requested')",
        'In [3]: model = DetectMultiBackend("yolov5s.pt", device=select_device("gpu"))\n'
        "---------------------------------------------------------------------------\n"
        "AssertionError                            Traceback (most recent call last)\n"
        "Cell In[3], line 1\n"
        '----> 1 model = DetectMultiBackend("yolov5s.pt", device=select_device("gpu"))\n'
        "\n"
        "File ~/yolov5/utils/torch_utils.py:118, in select_device(device, batch_size, newline)\n"
        "    116 elif device:  # non-cpu device requested\n"
        "    117     os.environ['CUDA_VISIBLE_DEVICES'] = device  # set environment variable - "
        "must be before assert is_available()\n"
        "--> 118     assert torch.cuda.is_available() and torch.cuda.device_count() >= "
        "len(device.replace(',', '')), \\\n"
        "    119         f\"Invalid CUDA '--device {device}' requested, use '--device cpu' or pass "
        'valid CUDA device(s)"\n'
        "\n"
        "AssertionError: Invalid CUDA '--device gpu' requested, use '--device cpu' or pass valid "
        "CUDA device(s)\n",
    ),
    V(
        "cpu-wheel-repl-one-line-program",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "a >>> line with 'import torch; print(version, is_available())' and its one output line "
        "(read as python -c's program)",
        ">>> import torch; print(torch.__version__, torch.cuda.is_available())\n2.3.1+cpu False\n",
    ),
    V(
        "cpu-wheel-ipython-tuple-echo",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "IPython echoes a tuple of the two expressions: Out[1]: ('2.3.1+cpu', False)",
        "In [1]: import torch; torch.__version__, torch.cuda.is_available()\nOut[1]: ('2.3.1+cpu', False)\n",
    ),
    V(
        "not-compiled-jupyter-windows-frame",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "Jupyter on Windows: 'File ~\\anaconda3\\...\\torch\\cuda\\__init__.py:284, in _lazy_init()' "
        "and the AssertionError",
        "In [2]: torch.zeros(1).cuda()\n"
        "---------------------------------------------------------------------------\n"
        "AssertionError                            Traceback (most recent call last)\n"
        "Cell In[2], line 1\n"
        "----> 1 torch.zeros(1).cuda()\n"
        "\n"
        "File ~\\anaconda3\\envs\\dl\\Lib\\site-packages\\torch\\cuda\\__init__.py:284, in _lazy_init()\n"
        "    279     raise RuntimeError(\n"
        '    280         "Cannot re-initialize CUDA in forked subprocess. To use CUDA with "\n'
        "    281         \"multiprocessing, you must use the 'spawn' start method\"\n"
        "    282     )\n"
        '    283 if not hasattr(torch._C, "_cuda_getDeviceCount"):\n'
        '--> 284     raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "    285 if _cudart is None:\n"
        "    286     raise AssertionError(\n"
        '    287         "libcudart functions unavailable. It looks like you have a broken build?"\n'
        "    288     )\n"
        "\n"
        "AssertionError: Torch not compiled with CUDA enabled\n",
    ),
    V(
        "no-driver-runtimeerror-get-device-name",
        "no_nvidia_driver",
        "googlecolab-colabtools-1773-reinstalled-torch-driver-too-old-10010.txt",
        "_lazy_init raising 'Found no NVIDIA driver on your system' under get_device_name (torch 2.x frames)",
        ">>> torch.cuda.get_device_name(0)\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/ana/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 493, '
        "in get_device_name\n"
        "    return get_device_properties(device).name\n"
        '  File "/home/ana/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 525, '
        "in get_device_properties\n"
        "    _lazy_init()  # will define _get_device_properties\n"
        '  File "/home/ana/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 319, '
        "in _lazy_init\n"
        "    torch._C._cuda_init()\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
        "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n",
    ),
    V(
        "cpu-wheel-ipython-out",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "IPython Out[n]: answers: '+cpu' and is_available() False (the user's own CUDA check)",
        "In [1]: import torch\n"
        "\n"
        "In [2]: torch.__version__\n"
        "Out[2]: '2.2.0+cpu'\n"
        "\n"
        "In [3]: torch.cuda.is_available()\n"
        "Out[3]: False\n",
    ),
    V(
        "cpu-wheel-powershell-python-c",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "PowerShell python -c with two prints",
        'PS C:\\Users\\ana\\proj> python -c "import torch; print(torch.__version__); '
        'print(torch.cuda.is_available())"\n'
        "2.3.1+cpu\n"
        "False\n",
    ),
    V(
        "pypi-windows-wheel-no-local-version",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "Windows REPL: PyPI's Windows wheel has no +cpu but torch.version.cuda prints None",
        "PS C:\\Users\\ana> python\n"
        "Python 3.12.4 (tags/v3.12.4:8e8a4ba, Jun  6 2024, 19:30:16) [MSC v.1940 64 bit (AMD64)] "
        "on win32\n"
        'Type "help", "copyright", "credits" or "license" for more information.\n'
        ">>> import torch\n"
        ">>> torch.__version__\n"
        "'2.3.1'\n"
        ">>> print(torch.version.cuda)\n"
        "None\n"
        ">>> torch.cuda.is_available()\n"
        "False\n",
    ),
    V(
        "cpu-build-ipython-print-none",
        "cpu_only_build",
        "pytorch-31243-pip-1.3.0-repl-false.txt",
        "IPython: print(torch.version.cuda) -> None, is_available False, version last",
        "In [1]: import torch\n"
        "\n"
        "In [2]: print(torch.version.cuda)\n"
        "None\n"
        "\n"
        "In [3]: torch.cuda.is_available()\n"
        "Out[3]: False\n"
        "\n"
        "In [4]: torch.__version__\n"
        "Out[4]: '2.1.2'\n",
    ),
    V(
        "too-old-torch1-assertion-multiline",
        "driver_too_old",
        "pytorch-696-repl-driver-too-old-7050.txt",
        "torch 0.4-1.0's _check_driver AssertionError, the message wrapped over six lines",
        ">>> torch.randn(2).cuda()\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/usr/local/lib/python3.6/dist-packages/torch/cuda/__init__.py", line 161, in '
        "_lazy_init\n"
        "    _check_driver()\n"
        '  File "/usr/local/lib/python3.6/dist-packages/torch/cuda/__init__.py", line 82, in '
        "_check_driver\n"
        '    http://www.nvidia.com/Download/index.aspx""")\n'
        "AssertionError: \n"
        "The NVIDIA driver on your system is too old (found version 9010).\n"
        "Please update your GPU driver by downloading and installing a new\n"
        "version from the URL: http://www.nvidia.com/Download/index.aspx\n"
        "Alternatively, go to: https://pytorch.org to install\n"
        "a PyTorch version that has been compiled with your version\n"
        "of the CUDA driver.\n",
    ),
    V(
        "no-driver-warning-before-false",
        "no_nvidia_driver",
        "googlecolab-colabtools-1773-reinstalled-torch-driver-too-old-10010.txt",
        "the same REPL shape with CUDAFunctions.cpp's 'Found no NVIDIA driver on your system' warning",
        ">>> import torch\n"
        ">>> torch.cuda.is_available()\n"
        "/home/ana/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:118: UserWarning: CUDA "
        "initialization: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx "
        "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
        "False\n",
    ),
    V(
        "error-999-ipython-resumes-from-sleep",
        "uvm_wedged_after_suspend",
        "pytorch-pytorch-43281-idle-machine-error-999-repl.txt",
        "IPython; 'resumes from sleep' instead of 'suspend'",
        "Every time my laptop resumes from sleep, torch no longer sees the GPU until I reboot:\n"
        "In [2]: torch.cuda.is_available()\n"
        "/home/ana/miniconda3/envs/dl/lib/python3.10/site-packages/torch/cuda/__init__.py:128: "
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly "
        "set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. "
        "Setting the available devices to be zero. (Triggered internally at "
        "../c10/cuda/CUDAFunctions.cpp:108.)\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
        "Out[2]: False\n",
    ),
    V(
        "error-999-repl-warning-no-words",
        "uvm_wedged_after_suspend",
        "pytorch-pytorch-43281-idle-machine-error-999-repl.txt",
        "the bare REPL and warning, no words about sleep (a possibility, not a verdict)",
        ">>> import torch\n"
        ">>> torch.cuda.is_available()\n"
        "/home/ana/miniconda3/envs/dl/lib/python3.10/site-packages/torch/cuda/__init__.py:128: "
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly "
        "set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. "
        "Setting the available devices to be zero. (Triggered internally at "
        "../c10/cuda/CUDAFunctions.cpp:108.)\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
        "False\n",
    ),
    V(
        "oom-old-message-repl",
        "cuda_out_of_memory",
        "pytorch-27600-repl-oom-not-freed.txt",
        "torch 1.x's OOM text with 'reserved in total by PyTorch' in a >>> traceback",
        ">>> out = model(batch.cuda())\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/ana/venv/lib/python3.8/site-packages/torch/nn/modules/module.py", line '
        "1102, in _call_impl\n"
        "    return forward_call(*input, **kwargs)\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 3.95 GiB total "
        "capacity; 3.20 GiB already allocated; 8.38 MiB free; 3.28 GiB reserved in total by "
        "PyTorch)\n",
    ),
    V(
        "mac-ipython-mps-true-cuda-false",
        "macos_no_cuda_use_mps",
        "donaldlab-OSPREY3-47-macbook-jcuda-not-initialized.txt",
        "IPython on a Mac: platform.platform() names macOS, the user's cuda check False and mps True",
        "In [1]: import torch, platform\n"
        "\n"
        "In [2]: platform.platform()\n"
        "Out[2]: 'macOS-14.5-arm64-arm-64bit'\n"
        "\n"
        "In [3]: torch.cuda.is_available()\n"
        "Out[3]: False\n"
        "\n"
        "In [4]: torch.backends.mps.is_available()\n"
        "Out[4]: True\n",
    ),
    V(
        "no-kernel-image-jupyter-gpu-named",
        "gpu_arch_too_new_for_build",
        "pytorch-149845-rtx5090d-repl-no-kernel-image.txt",
        "Jupyter: Out[2] names an RTX 5070 Ti, then 'Cell In[3]' with no kernel image",
        "In [1]: import torch\n"
        "\n"
        "In [2]: torch.cuda.get_device_name(0)\n"
        "Out[2]: 'NVIDIA GeForce RTX 5070 Ti'\n"
        "\n"
        'In [3]: torch.ones(3, device="cuda").sum()\n'
        "---------------------------------------------------------------------------\n"
        "RuntimeError                              Traceback (most recent call last)\n"
        "Cell In[3], line 1\n"
        '----> 1 torch.ones(3, device="cuda").sum()\n'
        "\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
    ),
    V(
        "salloc-then-node-prompt-python-c",
        "scheduler_no_gpu_allocated",
        "BLAST-AI-ML-synapse-199-srun-no-gpu-requested.txt",
        "salloc's own status lines (src/salloc), then the compute node's [user@node ~]$ prompt",
        "[ana@login01 ~]$ salloc -p gpu -N 1 -t 01:00:00\n"
        "salloc: Pending job allocation 807340\n"
        "salloc: job 807340 queued and waiting for resources\n"
        "salloc: job 807340 has been allocated resources\n"
        "salloc: Granted job allocation 807340\n"
        "salloc: Nodes gpu066 are ready for job\n"
        '[ana@gpu066 ~]$ python -c "import torch; print(torch.__version__, '
        'torch.cuda.is_available())"\n'
        "2.4.1+cu121 False\n",
    ),
    V(
        "srun-pty-bash-then-repl",
        "scheduler_no_gpu_allocated",
        "BLAST-AI-ML-synapse-199-srun-no-gpu-requested.txt",
        "srun --pty bash, conda env before the bracket prompt, then the REPL",
        "(torch) [ana@login01 ~]$ srun -p gpu --pty bash\n"
        "srun: job 4417733 queued and waiting for resources\n"
        "srun: job 4417733 has been allocated resources\n"
        "(torch) [ana@gpu012 ~]$ python\n"
        "Python 3.10.14 (main, May  6 2024, 19:42:50) [GCC 11.2.0] on linux\n"
        ">>> import torch\n"
        ">>> torch.cuda.is_available()\n"
        "False\n",
    ),
]

MORE_DECOYS = [
    D(
        "yolov7-select-device-numeric",
        "the same assertion for device '0': a real failure, but a numeric index is not the malformed-variable reading",
        "$ python detect.py --weights yolov7.pt --device 0 --source inference/images\n"
        "Traceback (most recent call last):\n"
        '  File "detect.py", line 184, in <module>\n'
        "    detect()\n"
        '  File "detect.py", line 32, in detect\n'
        "    device = select_device(opt.device)\n"
        '  File "/home/ana/yolov7/utils/torch_utils.py", line 71, in select_device\n'
        "    assert torch.cuda.is_available(), f'CUDA unavailable, invalid device {device} "
        "requested'  # check availability\n"
        "AssertionError: CUDA unavailable, invalid device 0 requested\n",
        ("cuda_visible_devices_hides_gpus",),
    ),
    D(
        "aer-cant-recover-other-devices",
        "err.c's 'can't recover' for a Thunderbolt controller and xhci_hcd, the NVIDIA module loading fine after",
        "[   30.100262] pcieport 0000:00:1d.0:    [20] UnsupReq               (First)\n"
        "[   30.100267] pcieport 0000:00:1d.0: AER:   TLP Header: 34000000 08000052 00000000 "
        "00000000\n"
        "[   30.100372] thunderbolt 0000:0a:00.0: AER: can't recover (no error_detected callback)\n"
        "[   30.100401] xhci_hcd 0000:3e:00.0: AER: can't recover (no error_detected callback)\n"
        "[   30.100427] pcieport 0000:00:1d.0: AER: device recovery failed\n"
        "[   31.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 "
        "10:10:01 UTC 2024\n",
        ("gpu_xid_fault",),
    ),
    D(
        "aer-correctable-on-gpu-new-wording",
        "6.x wording of a corrected error on the GPU ('severity=Correctable'): the link corrected it",
        "[  511.201001] pcieport 0000:00:01.0: AER: Correctable error message received from "
        "0000:01:00.0\n"
        "[  511.201010] nvidia 0000:01:00.0: PCIe Bus Error: severity=Correctable, type=Physical "
        "Layer, (Receiver ID)\n"
        "[  511.201015] nvidia 0000:01:00.0:   device [10de:2684] error "
        "status/mask=00000001/0000e000\n"
        "[  511.201020] nvidia 0000:01:00.0:    [ 0] RxErr                  (First)\n",
        ("gpu_xid_fault",),
    ),
    D(
        "benign-nvrm-noise-working-gpu",
        "known-benign lines of a working 550 (the Turing USB-C controller's i2c timeout, MSI "
        "fallback, an nvAssertOkFailedNoLog) and no failure",
        "[    3.211402] nvidia-gpu 0000:01:00.3: i2c timeout error e0000000\n"
        "[    3.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 "
        "10:10:01 UTC 2024\n"
        "[    5.402118] NVRM: GPU 0000:01:00.0: Failed to enable MSI; falling back to PCIe "
        "virtual-wire interrupts.\n"
        "[ 1204.551022] NVRM: nvAssertOkFailedNoLog: Assertion failed: Call timed out "
        "[NV_ERR_TIMEOUT] (0x00000065) returned from pRmApi->Control(pRmApi, "
        "RES_GET_CLIENT_HANDLE(pKernelChannel), RES_GET_HANDLE(pKernelChannel), "
        "NV906F_CTRL_CMD_GET_CLASS_ENGINEID, &engineIdParams, sizeof(engineIdParams)) @ "
        "kernel_channel.c:1787\n",
        ("gpu_xid_fault", "nvidia_module_not_loaded"),
    ),
    D(
        "healthy-ipython-tuple-echo",
        "IPython's tuple echo of a CUDA build answering True",
        "In [1]: import torch\n"
        "\n"
        "In [2]: torch.__version__, torch.version.cuda, torch.cuda.is_available()\n"
        "Out[2]: ('2.4.1+cu124', '12.4', True)\n",
        ("cpu_only_build",),
    ),
    D(
        "healthy-repl-print-with-device-name",
        "a print whose output has a device name with spaces: its words do not pair with the "
        "arguments, so nothing is read from it",
        ">>> import torch; print(torch.cuda.get_device_name(0), torch.cuda.is_available(), "
        "torch.__version__)\n"
        "NVIDIA GeForce RTX 3090 True 2.4.1+cu121\n",
        (),
    ),
    D(
        "persistenced-start-and-clean-stop",
        "journalctl -u nvidia-persistenced of a healthy boot and an orderly shutdown (signal 15)",
        "Mar 05 10:11:12 ws kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.107.02  "
        "Wed Jul 24 23:53:00 UTC 2024\n"
        "Mar 05 10:11:13 ws systemd[1]: Starting nvidia-persistenced.service - NVIDIA Persistence "
        "Daemon...\n"
        "Mar 05 10:11:13 ws nvidia-persistenced[988]: Started (988)\n"
        "Mar 05 10:11:13 ws systemd[1]: Started nvidia-persistenced.service - NVIDIA Persistence "
        "Daemon.\n"
        "Mar 05 18:40:02 ws nvidia-persistenced[988]: Received signal 15\n"
        "Mar 05 18:40:02 ws nvidia-persistenced[988]: Socket closed.\n"
        "Mar 05 18:40:02 ws nvidia-persistenced[988]: PID file unlocked.\n"
        "Mar 05 18:40:02 ws nvidia-persistenced[988]: PID file closed.\n"
        "Mar 05 18:40:02 ws nvidia-persistenced[988]: Shutdown (988)\n"
        "Mar 05 18:40:02 ws systemd[1]: Stopped nvidia-persistenced.service - NVIDIA Persistence "
        "Daemon.\n",
        ("nvidia_module_not_loaded", "gpu_xid_fault"),
    ),
    D(
        "secure-boot-enabled-module-signed",
        "Secure Boot on with a signed module that loaded: nothing was refused",
        "$ mokutil --sb-state\n"
        "SecureBoot enabled\n"
        "$ sudo dmesg | grep -i nvidia\n"
        "[    3.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 "
        "19:39:15 UTC 2024\n"
        "[    3.139762] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX "
        "platforms  535.183.01  Sun May 12 19:23:10 UTC 2024\n"
        "[    3.246521] [drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1\n",
        ("nvidia_module_not_loaded",),
    ),
    D(
        "dkms-signed-and-installed",
        "DKMS signing and installing the module: a build that worked",
        "Building module:\n"
        "Cleaning build area...\n"
        "'make' -j8 NV_EXCLUDE_BUILD_MODULES='' KERNEL_UNAME=6.8.0-40-generic modules.......\n"
        "Signing module /var/lib/dkms/nvidia/535.183.01/build/nvidia.ko\n"
        "Cleaning build area...\n"
        "nvidia.ko:\n"
        "Running module version sanity check.\n"
        " - Original module\n"
        "   - No original module exists within this kernel\n"
        " - Installation\n"
        "   - Installing to /lib/modules/6.8.0-40-generic/updates/dkms/\n"
        "depmod...\n",
        ("nvidia_module_not_loaded",),
    ),
    D(
        "akmods-other-kmod-failed-smi-works",
        "akmods failing for VirtualBox's kmod while nvidia-smi answers: not NVIDIA's module",
        "Checking kmods exist for 6.9.4-200.fc40.x86_64             [  OK  ]\n"
        "Building and installing VirtualBox-kmod                        [FAILED]\n"
        "Building rpms failed; see "
        "/var/cache/akmods/VirtualBox/7.0.18-1-for-6.9.4-200.fc40.x86_64.failed.log for details\n"
        "\n"
        "Hint: Some kmods were ignored or failed to build or install.\n"
        "$ nvidia-smi\n"
        "+---------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 555.52.04              Driver Version: 555.52.04      CUDA Version: 12.5     "
        "|\n",
        ("nvidia_module_not_loaded",),
    ),
    D(
        "srun-with-gres-true",
        "srun with --gres=gpu:1 after the bracket prompt answers True: the allocation is fine",
        "[ana@login01 ~]$ srun -p gpu --gres=gpu:1 python -c 'import torch; "
        "print(torch.cuda.is_available())'\n"
        "srun: job 4417734 queued and waiting for resources\n"
        "srun: job 4417734 has been allocated resources\n"
        "True\n",
        ("scheduler_no_gpu_allocated",),
    ),
    D(
        "mac-repl-mps-only",
        "a Mac REPL checking only MPS, which works: nothing asks for CUDA",
        "ana@Anas-MacBook-Pro ~ % python3\n"
        "Python 3.12.4 (main, Jun  6 2024, 18:26:44) [Clang 15.0.0 (clang-1500.3.9.4)] on darwin\n"
        ">>> import torch\n"
        ">>> torch.backends.mps.is_available()\n"
        "True\n"
        '>>> torch.ones(2, device="mps")\n'
        "tensor([1., 1.], device='mps:0')\n",
        ("macos_no_cuda_use_mps",),
    ),
    D(
        "cpu-version-only-no-cuda-check",
        "a '+cpu' version printed with no CUDA check: no wish for the GPU shown (stays information)",
        '$ python -c "import torch; print(torch.__version__)"\n2.3.1+cpu\n',
        ("cpu_only_build",),
    ),
]


# Texts whose words fit several causes: each is named as a possibility (a warning), none as an error.
AMBIGUOUS = [
    (
        "no-gpu-found-journal-amd-machine",
        "journalctl -k: newer nv.c's 'No NVIDIA GPU found.' and systemd-modules-load's ENODEV on a machine with an "
        "AMD GPU (restating ValveSoftware-SteamOS-209's 'No NVIDIA graphics adapter found!'): nv-pci.c counts no GPU "
        "this branch supports, so a dropped (legacy) NVIDIA GPU prints the same; the AMD GPU does not show there "
        "is no NVIDIA one",
        "Mar 05 10:11:12 steambox kernel: amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!\n"
        "Mar 05 10:11:12 steambox kernel: NVRM: No NVIDIA GPU found.\n"
        "Mar 05 10:11:12 steambox systemd-modules-load[402]: Failed to insert module 'nvidia': No such device\n",
        {"no_nvidia_gpu", "driver_does_not_support_gpu"},
    ),
]

VARIANTS = KERNEL_VARIANTS + MORE_KERNEL + REPL_VARIANTS + MORE_REPL
DECOYS = KERNEL_DECOYS + REPL_DECOYS + MORE_DECOYS


# Variants still read wrongly, each with why (strict: one that starts passing must leave this list).
KNOWN_MISSES = {
    "old-torch-found-user-site-ipython": (
        "the version and the ~/.local path are read, but the shadowing is read only from the user's words that a "
        "reinstall still shows the old/wrong/same *version* (build_facts.STILL_OLD_VERSION); 'still finds an old one' "
        "is prose (fx26-prose's area), and a torch under the user site is no fault by itself"
    ),
}
CASES = [
    pytest.param(v, id=v.name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[v.name]))
    if v.name in KNOWN_MISSES
    else pytest.param(v, id=v.name)
    for v in VARIANTS
]


@pytest.mark.parametrize("variant", CASES)
def test_the_same_cause_in_another_users_paste_comes_first(variant: Variant) -> None:
    findings = load_text(variant.text).findings
    assert findings, f"nothing read ({variant.why})"
    assert findings[0].id == variant.expect, (
        f"{variant.why}: first {[f.id for f in findings[:3]]}, expected {variant.expect} (as in {variant.base})"
    )


@pytest.mark.parametrize("decoy", DECOYS, ids=[d.name for d in DECOYS])
def test_the_same_formats_for_a_healthy_system_claim_no_error(decoy: Decoy) -> None:
    findings = load_text(decoy.text).findings
    errors = [f.id for f in findings if f.severity is Severity.ERROR]
    assert not errors, f"{decoy.why}: {errors}"
    claimed = {f.id for f in findings if f.severity is not Severity.INFO}
    assert not claimed & set(decoy.banned), decoy.why


@pytest.mark.parametrize(("why", "text", "causes"), [a[1:] for a in AMBIGUOUS], ids=[a[0] for a in AMBIGUOUS])
def test_words_of_several_causes_name_them_without_an_error(why: str, text: str, causes: set[str]) -> None:
    findings = load_text(text).findings
    assert not [f.id for f in findings if f.severity is Severity.ERROR], why
    claimed = {f.id for f in findings if f.severity is Severity.WARNING}
    assert causes <= claimed, why


# The user's own CUDA check answering False (REPL, IPython, python -c) asks for the GPU: a CPU-only build is then the
# cause (a claim), not a description of a machine that may have no GPU (information).
CHECKED_FALSE = [v for v in VARIANTS if v.expect == "cpu_only_build"]


@pytest.mark.parametrize("variant", CHECKED_FALSE, ids=[v.name for v in CHECKED_FALSE])
def test_a_cuda_check_answering_false_makes_the_cpu_build_a_claim(variant: Variant) -> None:
    first = load_text(variant.text).findings[0]
    assert first.severity is not Severity.INFO, variant.why
