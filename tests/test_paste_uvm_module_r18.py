"""Round 18 (issue #14, system side): a UVM module that was never loaded or cannot be loaded is the module class
(nvidia_module_not_loaded); only a text that says the machine slept makes it the UVM a resume broke
(uvm_wedged_after_suspend). Synthetic texts, each with a counter-example."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


CUINIT_999 = "failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error"


# ---- kmod cannot find or insert the UVM module: not installed or not built for the running kernel --------------


@pytest.mark.parametrize(
    "line",
    [
        "modprobe: ERROR: ../libkmod/libkmod-module.c:838 kmod_module_insert_module() could not find module by "
        "name='nvidia_470_uvm'",
        "modprobe: ERROR: could not insert 'nvidia_470_uvm': Unknown symbol in module, or unknown parameter",
        "modprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/6.1.0-18-amd64",
        "systemd-modules-load[288]: Failed to find module 'nvidia-uvm'",
    ],
)
def test_uvm_module_kmod_cannot_load_is_the_module_class(line: str) -> None:
    ids = _ids(f"{CUINIT_999}\n{line}\n")
    assert ids[:1] == ["nvidia_module_not_loaded"]


def test_uvm_insert_without_the_module_word_does_not_take_another_module() -> None:
    # Counter-example: a missing display module (nvidia_drm) on its own line is not read as the UVM row, and a
    # UVM line that printed no error at all (a successful modprobe) claims nothing.
    assert "nvidia_module_not_loaded" not in _ids(
        "$ sudo modprobe nvidia_uvm\n$ lsmod | grep nvidia_uvm\nnvidia_uvm           1363968  0\n"
    )


def test_a_resume_broken_uvm_device_stays_the_uvm_reading() -> None:
    # Counter-example: the node gone after a resume is the wedged UVM, not a module that was never installed.
    text = (
        f"{CUINIT_999}\nAfter the laptop woke from suspend: failed to open /dev/nvidia-uvm: No such file or directory\n"
    )
    assert _ids(text)[:1] == ["uvm_wedged_after_suspend"]


# ---- the user's words: nvidia_uvm not loaded, with or without a sleep ------------------------------------------


def test_uvm_never_loaded_at_boot_in_words_is_the_module_class() -> None:
    text = (
        "Since I switched to the open kernel modules, CUDA programs fail at startup.\n"
        "After boot the nvidia_uvm module is not loaded; nvidia and nvidia_modeset are.\n"
    )
    ids = _ids(text)
    assert ids[:1] == ["nvidia_module_not_loaded"]
    assert "uvm_wedged_after_suspend" not in ids[:1]


def test_uvm_not_loaded_after_a_sleep_in_words_is_the_uvm_reading() -> None:
    text = "When the PC resumed from suspend, CUDA fails: the nvidia_uvm module is not loaded any more.\n"
    assert _ids(text)[:1] == ["uvm_wedged_after_suspend"]


def test_sleep_denied_does_not_make_it_the_uvm_reading() -> None:
    # "after sleep" named only to deny it: the machine never slept, so the module class stays first.
    text = (
        "CUDA fails after boot. Suspend is disabled on this server, it never sleeps.\n"
        "The nvidia_uvm module is not loaded.\n"
    )
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]
