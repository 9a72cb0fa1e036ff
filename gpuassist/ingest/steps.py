"""The ordered steps that turn a pasted text's pattern matches into a report's findings.

Each step is a named function over one PasteContext (the lines, the report, the matches in play, where each fact was
stated). STEPS is the whole chain, in order; INFERENCES are the readers that propose one more likely cause each, all
from the same matches. A new reader adds a function here (or in its own module) and one entry in the right tuple.

Why the order matters: a step reads the matches the steps before it left, and most steps drop or replace guesses.
1. Findings proven by paths, then the rule-outs and platform re-readings (Mac, WSL, Jetson, a libcuda that loads,
   a ROCm build's HIP prefix, a driver shown present): they change what a driver or CUDA message means before
   anything builds on that meaning.
2. The inferences (one step, ``infer``): each sees the same matches, so among themselves their order only sets the
   order of equal-weight guesses.
3. The settling steps: each removes or reorders what the inferences proposed, so it must come after them, and a step
   that must see another's result comes after it (kernel_cause_explains after no_gpu_explains; windows_cpu_build,
   the Windows fallback guess, after every rule-out it must not contradict; the Jetson settling after the build
   readings it overrules; the host under a container, a Mac or an image for another CPU, last, since it replaces
   the toolkit/driver guesses any earlier step may have added).
4. ``merge`` turns the matches into findings (what the text rules out dropped once more); the steps after it work on
   findings, and fix texts are worded last, before ``cite_pasted_lines`` adds the evidence and the confirm step.
Reordering any of these changes verdicts: compare every corpus text's report before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from gpuassist.facts import Facts
from gpuassist.findings import Evidence
from gpuassist.ingest import (
    after_events,
    assert_before_cublas,
    cluster_containers,
    code_placement,
    conda_cpu_selector,
    container_cli_host,
    container_driver_absent,
    container_hosts,
    container_readings,
    container_shown,
    cpu_fallback,
    cuda_driver_api,
    cuda_loaders,
    dispatch_backend,
    distro_torch,
    dkms_words,
    driver_install_failed,
    driver_installed,
    errors,
    fitting_build,
    gpu_error_state,
    gpu_presence,
    held_memory_words,
    hip_errors,
    install_intent,
    interpreters,
    jetson_mounts,
    jetson_texts,
    kernel_noise,
    kernel_tree,
    later_success,
    libcuda_found,
    module_words,
    named_gpu,
    ngc_banner,
    ngc_driver_check,
    ngc_gpu_check,
    not_about_failure,
    nouveau_failures,
    os_call_refused,
    paste_causes,
    pcie_aer,
    platform_readings,
    pod_runtime,
    process_readings,
    program_devices,
    program_fixes,
    reboot_words,
    resume_init,
    runtime_config,
    scheduler_fix_told,
    smi_query,
    smi_words,
    soname_build,
    source_builds,
    system_causes,
    torch_dll_frames,
    torch_fix_told,
    torch_lib_copies,
    usage_words,
    user_words,
    uvm_node_cause,
    uvm_node_words,
    visible_devices_said,
    windows_device_status,
    windows_smi,
    wsl_linux_driver,
    wsl_name_only,
    wsl_nix_driver,
    wsl_tcc,
)
from gpuassist.ingest.amd_gpu_words import stated_amd_gpu
from gpuassist.ingest.arch_readings import driver_rules_out
from gpuassist.ingest.build_facts import (
    cpu_build_without_version,
    cuda_listed_cpu_running,
    guesses_the_build_rules_out,
    reinstall_without_effect,
    two_torch_copies,
    windows_plain_install_match,
)
from gpuassist.ingest.cloud_instance import instance_without_gpu_match
from gpuassist.ingest.cluster_texts import quoted_job_without_gpu, smi_missing_on_cluster
from gpuassist.ingest.container_boundary import (
    compose_without_gpu_reservation,
    container_started_without_gpu,
    run_without_gpu_beside_host_report,
)
from gpuassist.ingest.container_smi import image_without_smi
from gpuassist.ingest.cpu_build_words import cuda_less_torch_in_words
from gpuassist.ingest.device_ordinal import ordinal_without_variable
from gpuassist.ingest.display_watchdog import watchdog_killed_kernel
from gpuassist.ingest.driver_branch import supported_branch_rules_out, unsupported_branch_match
from gpuassist.ingest.extension_kernels import extension_kernel_matches
from gpuassist.ingest.fabric import fabric_manager_not_needed
from gpuassist.ingest.gpu_absent_words import gpu_absent_guesses_out
from gpuassist.ingest.gpuless_machine import stated_gpuless_machine
from gpuassist.ingest.igpu_only import integrated_only_match
from gpuassist.ingest.insufficient_driver_gpuless import insufficient_driver_without_gpu
from gpuassist.ingest.job_devices import allocation_explains, requested_gpus_not_in_job
from gpuassist.ingest.lines import Sources
from gpuassist.ingest.loader_workers import workers_zero_starves
from gpuassist.ingest.module_load import (
    dkms_not_built_for_running_kernel,
    init_error_after_suspend_match,
    integrated_graphics_mode_match,
    kernel_update_match,
    lsmod_empty_match,
    no_driver_packages_match,
    nouveau_holds_gpu_match,
    secure_boot_blocks_module,
)
from gpuassist.ingest.numpy_abi import numpy_abi_torch, settle_numpy_warning, word_numpy_fix
from gpuassist.ingest.numpy_bridge import settle as numpy_bridge_settle
from gpuassist.ingest.orchestration import (
    device_plugin_without_runtime_match,
    login_node_match,
    node_without_gpus,
    singularity_without_driver_match,
    toolkit_ldconfig_match,
    uvm_device_missing_match,
    working_smi_rules_out_module,
)
from gpuassist.ingest.pci_listing import gpu_off_bus_match, lspci_without_nvidia_match
from gpuassist.ingest.resolver_words import retold_resolver_failure
from gpuassist.ingest.tool_interpreters import installer_of_another_python
from gpuassist.ingest.torch_kernels_run import torch_kernels_run_matches
from gpuassist.ingest.torch_source_tree import explain as source_tree_explain
from gpuassist.ingest.torch_source_tree import source_tree_matches
from gpuassist.ingest.unavailable_said import says_unavailable
from gpuassist.ingest.unchanged_setup import unchanged_guesses_out
from gpuassist.ingest.unpublished_pin import explain as unpublished_pin_explain
from gpuassist.ingest.unpublished_pin import unpublished_variant_match
from gpuassist.ingest.visible_devices_order import explain as set_after_init_explain
from gpuassist.ingest.visible_devices_order import set_after_init_matches, visible_devices_ignored
from gpuassist.ingest.wheel_abi import wheel_for_another_python
from gpuassist.ingest.wsl_no_device import wsl_no_device_first
from gpuassist.report.model import Report
from gpuassist.rules import gpu_stacks, view


@dataclass
class PasteContext:
    """What every step reads and changes: the pasted lines, the report being built (its facts and findings), the
    pattern matches still in play, and where each fact was stated. Steps replace ``matches`` (never edit it in place),
    so a reading computed from an earlier list stays valid."""

    lines: list[str]
    report: Report
    matches: list[errors.Match]
    sources: Sources
    # The error messages the text itself carries, before any step inferred or dropped one.
    said: list[str] = field(default_factory=list)

    @property
    def facts(self) -> Facts:
        return self.report.facts

    @cached_property
    def unavailable_said(self) -> bool:
        """The text says CUDA does not work (read once: the lines never change)."""
        return says_unavailable(self.lines)

    @cached_property
    def gpu_unused_said(self) -> bool:
        """The user says, in their words, that the GPU is not used or not found."""
        return system_causes.says_gpu_unused(self.lines)

    @property
    def cuda_unavailable(self) -> bool:
        """torch's answer was False, or the text says CUDA does not work."""
        return self.facts.value("cuda.available") is False or self.unavailable_said

    @property
    def complains(self) -> bool:
        """The text says CUDA does not work or the GPU is unused (whatever torch answered)."""
        return self.unavailable_said or self.gpu_unused_said

    @property
    def wsl(self) -> bool:
        return self.facts.value("platform.wsl") is not None


# A step changes the context (usually replaces its matches); an inference proposes one more match or none.
Step = Callable[[PasteContext], None]
Inference = Callable[[PasteContext], "errors.Match | None"]


# ---- before the inferences: findings only the paths show, and what the text rules out -------------------------


def path_findings(ctx: PasteContext) -> None:
    """Findings only the paste's paths show (the library or torch copy to blame) replace a rule's finding of the
    same id."""
    lines, report = ctx.lines, ctx.report
    for found in (
        paste_causes.library_finding(lines) or paste_causes.dependency_finding(lines),
        paste_causes.shadowed_torch_finding(lines) or torch_lib_copies.stray_torch_library_finding(lines),
    ):
        if found is None:
            continue
        same = next((f for f in report.findings if f.id == found.id), None)
        if same is not None:
            report.findings.remove(same)
        report.findings.append(found)


def remember_said(ctx: PasteContext) -> None:
    """The error messages the text itself carries, before any inference (fitting_build.settle reads them)."""
    ctx.said = [m.line for m in ctx.matches]


def ruled_out_first(ctx: PasteContext) -> None:
    """What the text rules out goes before any reading builds on it (again at the merge for later guesses)."""
    ctx.matches = user_words.ruled_out_guesses(ctx.lines, user_words.unknown_error_matches(ctx.lines, ctx.matches))


def mac_cuda_failure(ctx: PasteContext) -> None:
    if ctx.facts.value("host.os") == "Darwin" and ctx.facts.value("platform.rosetta") is not True:
        mac = user_words.mac_cuda_failure(ctx.lines, ctx.matches, unavailable=ctx.cuda_unavailable)
        ctx.matches = ctx.matches if mac is None else [*ctx.matches, mac]


def found_library(ctx: PasteContext) -> None:
    ctx.matches = libcuda_found.drop_found_library_readings(ctx.matches)


def os_call_without_wsl(ctx: PasteContext) -> None:
    ctx.matches = os_call_refused.os_call_without_wsl(ctx.lines, ctx.matches, wsl=ctx.wsl)


def macos(ctx: PasteContext) -> None:
    ctx.matches = platform_readings.macos_matches(ctx.lines, ctx.report, ctx.matches)


def mac_dispatch_cuda(ctx: PasteContext) -> None:
    """torch's dispatcher finding no CUDA kernel on a Mac: CUDA's absence there, whose answer is MPS."""
    ctx.matches = dispatch_backend.mac_cuda_kernel_missing(
        ctx.lines,
        ctx.matches,
        mac=ctx.facts.value("host.os") == "Darwin",
        rosetta=ctx.facts.value("platform.rosetta") is True,
    )


def hip_printed(ctx: PasteContext) -> None:
    ctx.matches = hip_errors.hip_rereads_cuda_arch(ctx.matches, ctx.lines)


def driver_present(ctx: PasteContext) -> None:
    ctx.matches = platform_readings.driver_present_matches(ctx.lines, ctx.report, ctx.matches)


def wsl_loader(ctx: PasteContext) -> None:
    ctx.matches = cuda_loaders.wsl_loader_without_libcuda(ctx.wsl, ctx.matches)


def native_windows(ctx: PasteContext) -> None:
    ctx.matches = cuda_loaders.native_windows_drops_wsl_path(ctx.facts.value("host.os"), ctx.wsl, ctx.matches)


def jetson_without_torch(ctx: PasteContext) -> None:
    ctx.matches = platform_readings.jetson_without_torch(ctx.lines, ctx.matches)


def wsl_driver(ctx: PasteContext) -> None:
    ctx.matches = platform_readings.wsl_driver_matches(ctx.report, ctx.matches)


def wsl_name_alone(ctx: PasteContext) -> None:
    """WSL 2's kernel name is a weak hint only beside a failure (ingest/wsl_name_only.py)."""
    ctx.matches = wsl_name_only.kernel_name_needs_a_failure(ctx.lines, ctx.matches, complains=ctx.complains)


def uvm_reload_after_sleep(ctx: PasteContext) -> None:
    """A UVM reload refused after a sleep is the sleep's, not the module class (ingest/module_words.py)."""
    ctx.matches = module_words.uvm_refused_after_sleep(ctx.lines, ctx.matches)


def no_failure_said(ctx: PasteContext) -> None:
    """nouveau bound to the card by someone who uses no CUDA: no failure to explain (ingest/not_about_failure.py)."""
    ctx.matches = not_about_failure.nouveau_without_compute(
        ctx.lines, ctx.matches, unavailable_said=ctx.unavailable_said
    )


def told_not_shown(ctx: PasteContext) -> None:
    """A message only quoted or said to be over, read again by an inference (a black screen beside it): not this
    machine's fault now (ingest/not_about_failure.py)."""
    ctx.matches = not_about_failure.told_not_shown(ctx.lines, ctx.matches)


def build_fixed_later(ctx: PasteContext) -> None:
    """A module build failure that a later build or healthy check shows over, read again by an inference: not
    this machine's fault now (ingest/later_success.py)."""
    ctx.matches = later_success.build_failure_fixed_later(ctx.lines, ctx.matches)


def wsl_no_device(ctx: PasteContext) -> None:
    ctx.matches = wsl_no_device_first(ctx.wsl, ctx.matches)


def wsl_no_driver(ctx: PasteContext) -> None:
    ctx.matches = container_shown.wsl_no_driver_first(ctx.wsl, ctx.matches)


def smi_on_windows(ctx: PasteContext) -> None:
    """nvidia-smi failing in a Windows shell is the Windows driver's absence (ingest/windows_smi.py)."""
    ctx.matches = windows_smi.windows_smi_no_driver(ctx.lines, ctx.matches)


def jetson_system(ctx: PasteContext) -> None:
    if ctx.facts.value("platform.jetson"):
        matches = system_causes.jetson_source_build_expected(
            ctx.matches, cuda_trouble=ctx.cuda_unavailable or ctx.gpu_unused_said
        )
        matches = system_causes.jetson_cuda_library_missing(ctx.lines, matches)
        ctx.matches = system_causes.jetson_container_release_mismatch(ctx.lines, matches)


# ---- the inferences: each proposes a likely cause from the same matches --------------------------------------


def _of_lines(read: Callable[[list[str]], errors.Match | None]) -> Inference:
    """An inference that needs only the lines."""

    def inference(ctx: PasteContext) -> errors.Match | None:
        return read(ctx.lines)

    inference.__name__ = inference.__qualname__ = read.__name__
    return inference


def _of_lines_matches(read: Callable[[list[str], list[errors.Match]], errors.Match | None]) -> Inference:
    """An inference that needs the lines and the matches so far."""

    def inference(ctx: PasteContext) -> errors.Match | None:
        return read(ctx.lines, ctx.matches)

    inference.__name__ = inference.__qualname__ = read.__name__
    return inference


def _of_lines_report(read: Callable[[list[str], Report], errors.Match | None]) -> Inference:
    """An inference that needs the lines and the report's facts."""

    def inference(ctx: PasteContext) -> errors.Match | None:
        return read(ctx.lines, ctx.report)

    inference.__name__ = inference.__qualname__ = read.__name__
    return inference


def _of_lines_unavailable(read: Callable[..., errors.Match | None]) -> Inference:
    """An inference that needs the lines and whether CUDA is unavailable (keyword ``unavailable``)."""

    def inference(ctx: PasteContext) -> errors.Match | None:
        return read(ctx.lines, unavailable=ctx.cuda_unavailable)

    inference.__name__ = inference.__qualname__ = read.__name__
    return inference


def _of_lines_matches_unreachable(read: Callable[..., errors.Match | None]) -> Inference:
    """An inference that needs the lines, the matches and whether the text complains (keyword ``unreachable``)."""

    def inference(ctx: PasteContext) -> errors.Match | None:
        return read(ctx.lines, ctx.matches, unreachable=ctx.complains)

    inference.__name__ = inference.__qualname__ = read.__name__
    return inference


def jetson_wheel(ctx: PasteContext) -> errors.Match | None:
    return platform_readings.jetson_match(ctx.lines, ctx.report, ctx.matches)


def host_report_beside_run(ctx: PasteContext) -> errors.Match | None:
    return run_without_gpu_beside_host_report(ctx.lines, host_cuda_works=ctx.facts.value("cuda.available") is True)


def stated_non_nvidia_graphics(ctx: PasteContext) -> errors.Match | None:
    return None if ctx.facts.known("reported.gpus") else user_words.stated_non_nvidia_graphics(ctx.lines)


def amd_gpu_in_words(ctx: PasteContext) -> errors.Match | None:
    return None if ctx.facts.known("reported.gpus") else stated_amd_gpu(ctx.lines)


def integrated_only(ctx: PasteContext) -> errors.Match | None:
    if ctx.facts.known("reported.gpus") or ctx.facts.known("driver.version"):
        return None
    return integrated_only_match(ctx.lines)


def cpu_torch_in_words(ctx: PasteContext) -> errors.Match | None:
    return user_words.cpu_torch_in_words(ctx.lines) or cuda_less_torch_in_words(ctx.lines)


def conda_cpu_selector_off_mac(ctx: PasteContext) -> errors.Match | None:
    # macOS has no CUDA variant: pytorch-mutex "cpu" is every Mac's build, and MPS lives in it.
    if ctx.facts.value("host.os") == "Darwin":
        return None
    return conda_cpu_selector.conda_cpu_selector_match(ctx.lines)


def visible_devices_fix_reported(ctx: PasteContext) -> errors.Match | None:
    return user_words.visible_devices_fix_reported(
        ctx.lines,
        no_device=ctx.cuda_unavailable or any(m.id == "cuda_visible_devices_hides_gpus" for m in ctx.matches),
    )


def gpu_waits_for_data(ctx: PasteContext) -> errors.Match | None:
    return usage_words.gpu_waits_for_data(
        ctx.lines, user_words.loader_starves_gpu_in_words(ctx.lines) or workers_zero_starves(ctx.lines)
    )


def work_left_on_cpu(ctx: PasteContext) -> errors.Match | None:
    return usage_words.work_left_on_cpu(
        ctx.lines, cuda_available=ctx.facts.value("cuda.available"), gpu_unused_said=ctx.gpu_unused_said
    )


def singularity_without_driver(ctx: PasteContext) -> errors.Match | None:
    return singularity_without_driver_match(ctx.lines, ctx.cuda_unavailable)


def container_launch_without_gpu(ctx: PasteContext) -> errors.Match | None:
    return cluster_containers.container_launch_without_gpu(ctx.lines, ctx.cuda_unavailable)


def login_node(ctx: PasteContext) -> errors.Match | None:
    return login_node_match(ctx.lines, ctx.cuda_unavailable)


def cpu_build_without_version_stated(ctx: PasteContext) -> errors.Match | None:
    return cpu_build_without_version(ctx.facts, ctx.sources)


def reinstall_without_effect_said(ctx: PasteContext) -> errors.Match | None:
    return reinstall_without_effect(ctx.lines, ctx.facts)


# Every inference sees the matches as they stood before the first of them: none reads another's guess, so their
# order only decides the order the guesses are listed in (which breaks ties between equal weights).
INFERENCES: tuple[Inference, ...] = (
    jetson_wheel,
    _of_lines_report(container_readings.visible_devices_match),
    _of_lines_report(container_readings.container_run_match),
    _of_lines(container_started_without_gpu),
    host_report_beside_run,
    _of_lines_unavailable(compose_without_gpu_reservation),
    _of_lines_report(container_readings.container_smi_match),
    _of_lines_report(container_readings.container_without_compute_match),
    _of_lines_report(container_readings.compose_match),
    _of_lines(gpu_presence.display_devices_match),
    _of_lines_report(gpu_presence.stated_graphics_match),
    stated_non_nvidia_graphics,
    amd_gpu_in_words,
    integrated_only,
    cpu_torch_in_words,
    conda_cpu_selector_off_mac,
    _of_lines_unavailable(distro_torch.distro_cpu_torch_match),
    _of_lines(user_words.mig_in_words),
    visible_devices_fix_reported,
    gpu_waits_for_data,
    work_left_on_cpu,
    _of_lines(code_placement.loop_without_placement),
    _of_lines_matches(usage_words.memory_kept_after_stop),
    _of_lines_matches(usage_words.holders_listed),
    _of_lines_unavailable(usage_words.visible_devices_hide_gpus),
    _of_lines(usage_words.compute_mode_prohibited),
    _of_lines_unavailable(usage_words.workload_without_gpu_request),
    _of_lines_unavailable(user_words.slurm_step_without_gpu),
    _of_lines_unavailable(quoted_job_without_gpu),
    _of_lines(user_words.memory_not_released),
    _of_lines(user_words.nouveau_without_driver),
    _of_lines_matches(user_words.other_job_on_gpu),
    _of_lines_matches(held_memory_words.found_process_holding_memory),
    _of_lines(user_words.works_in_own_check_not_app),
    _of_lines_unavailable(user_words.visible_devices_hide_all),
    _of_lines_matches(visible_devices_ignored),
    _of_lines_matches(visible_devices_said.said_matches),
    _of_lines_matches(gpu_presence.cpu_machine_match),
    _of_lines_matches(system_causes.nouveau_bound_match),
    _of_lines_matches(secure_boot_blocks_module),
    _of_lines(lsmod_empty_match),
    _of_lines_matches(kernel_update_match),
    _of_lines_matches(nouveau_holds_gpu_match),
    _of_lines_matches(nouveau_failures.nouveau_failing_match),
    _of_lines_report(wsl_linux_driver.linux_driver_in_wsl),
    _of_lines_matches(init_error_after_suspend_match),
    _of_lines_matches_unreachable(integrated_graphics_mode_match),
    _of_lines(no_driver_packages_match),
    _of_lines_matches_unreachable(unsupported_branch_match),
    _of_lines_matches_unreachable(dkms_not_built_for_running_kernel),
    _of_lines(gpu_off_bus_match),
    _of_lines_unavailable(instance_without_gpu_match),
    _of_lines(lspci_without_nvidia_match),
    _of_lines(device_plugin_without_runtime_match),
    _of_lines(runtime_config.default_runtime_missing_match),
    _of_lines(jetson_mounts.jetson_container_without_runtime),
    _of_lines(ngc_driver_check.ngc_driver_too_old_match),
    _of_lines(uvm_device_missing_match),
    singularity_without_driver,
    _of_lines(toolkit_ldconfig_match),
    _of_lines(smi_query.throttling_match),
    container_launch_without_gpu,
    login_node,
    _of_lines(system_causes.container_gpu_listing_without_toolkit),
    _of_lines(system_causes.recurring_app_xid_match),
    _of_lines(pcie_aer.aer_lost_gpu_match),
    _of_lines_report(wsl_tcc.tcc_under_wsl_match),
    _of_lines(system_causes.machine_without_nvidia_gpu_match),
    _of_lines(stated_gpuless_machine),
    _of_lines(watchdog_killed_kernel),
    _of_lines(image_without_smi),
    _of_lines(requested_gpus_not_in_job),
    _of_lines_matches(process_readings.smi_memory_held_match),
    _of_lines(process_readings.two_interpreters_match),
    _of_lines(installer_of_another_python),
    _of_lines(interpreters.cuda_differs_between_interpreters),
    _of_lines(paste_causes.works_elsewhere_match),
    cpu_build_without_version_stated,
    _of_lines(two_torch_copies),
    reinstall_without_effect_said,
    _of_lines(unpublished_variant_match),
    _of_lines_matches(after_events.stopped_after_sleep_match),
    _of_lines_matches(uvm_node_words.uvm_node_gone_after_sleep_match),
    _of_lines_matches(after_events.nvml_unknown_in_words_match),
    _of_lines_matches(module_words.module_not_loaded_in_words),
    _of_lines_matches(dkms_words.module_not_rebuilt_in_words),
    _of_lines(driver_install_failed.driver_install_aborted_match),
    _of_lines(retold_resolver_failure),
)


def infer(ctx: PasteContext) -> None:
    """Run every inference against the same matches, then add what they proposed."""
    proposed = [inference(ctx) for inference in INFERENCES]
    ctx.matches = [*ctx.matches, *(m for m in proposed if m is not None)]


# ---- after the inferences: the readings that settle between them ---------------------------------------------


def device_manager(ctx: PasteContext) -> None:
    """Windows Device Manager's problem codes of the GPU (windows_device_status), added after the inferences so that
    none of them gives way to a code (the words readers that yield to a specific match keep their guess beside a
    Code 28, and the settling steps weigh both). Not load-bearing today: moved before ``infer`` it changes no verdict
    of the corpus or the tests (measured in the round 13/14 review)."""
    ctx.matches = [*ctx.matches, *windows_device_status.device_manager_matches(ctx.lines)]


def cli_cannot_load_driver(ctx: PasteContext) -> None:
    ctx.matches = container_cli_host.cli_cannot_load_driver(ctx.lines, ctx.matches)


def app_on_cpu(ctx: PasteContext) -> None:
    ctx.matches = cpu_fallback.app_on_cpu_matches(ctx.lines, ctx.facts, ctx.matches)


def torch_in_another_interpreter(ctx: PasteContext) -> None:
    """The text shows torch importing in another interpreter: "No module named torch" is that program's interpreter
    lacking it, not torch missing from the machine."""
    if any(m.id == "wrong_interpreter_or_kernel" and m.specific for m in ctx.matches):
        ctx.matches = [m for m in ctx.matches if m.id != "torch_not_installed"]


def in_container(ctx: PasteContext) -> None:
    ctx.matches = container_readings.in_container_matches(ctx.lines, ctx.report, ctx.matches)


def pod_without_runtime(ctx: PasteContext) -> None:
    ctx.matches = pod_runtime.pod_without_nvidia_runtime(ctx.lines, ctx.report, ctx.matches)


def device_plugin_node(ctx: PasteContext) -> None:
    ctx.matches = system_causes.device_plugin_node_has_driver(ctx.lines, ctx.matches)


def gpu_less_container(ctx: PasteContext) -> None:
    ctx.matches = container_readings.gpu_less_container_matches(ctx.lines, ctx.report, ctx.matches)


def other_module_kernel_tree(ctx: PasteContext) -> None:
    ctx.matches = kernel_tree.other_module_build(ctx.lines, ctx.matches)


def init_failed_after_resume(ctx: PasteContext) -> None:
    """An adapter init failure after the host slept is the resume's (ingest/resume_init.py, round 29)."""
    ctx.matches = resume_init.init_failed_after_resume(ctx.lines, ctx.matches)


def nix_driver_dir_on_wsl(ctx: PasteContext) -> None:
    """Nix's /run/opengl-driver/lib said missing on WSL: WSL's libcuda not found (ingest/wsl_nix_driver.py)."""
    ctx.matches = wsl_nix_driver.nix_driver_dir_missing_on_wsl(ctx.lines, ctx.matches)


def insufficient_driver_in_container(ctx: PasteContext) -> None:
    ctx.matches = container_driver_absent.insufficient_driver_in_gpu_less_container(ctx.lines, ctx.report, ctx.matches)


def torch_fix_in_container(ctx: PasteContext) -> None:
    ctx.matches = torch_fix_told.torch_fix_rules_out_runtime(ctx.lines, ctx.matches)


def ngc_banner_request(ctx: PasteContext) -> None:
    compose_gpu = any(container_readings.COMPOSE_GPU.search(line[:2000]) for line in ctx.lines)
    ctx.matches = ngc_banner.banner_with_gpu_request(ctx.lines, ctx.matches, compose_gpu=compose_gpu)


def ngc_check_beside_working_gpu(ctx: PasteContext) -> None:
    ctx.matches = ngc_gpu_check.banner_beside_working_gpu(ctx.lines, ctx.matches)


def no_gpu_explains(ctx: PasteContext) -> None:
    ctx.matches = gpu_presence.no_gpu_explains(ctx.matches)


def insufficient_driver_gpuless(ctx: PasteContext) -> None:
    ctx.matches = insufficient_driver_without_gpu(ctx.lines, ctx.facts, ctx.matches)


def kernel_cause_explains(ctx: PasteContext) -> None:
    ctx.matches = system_causes.kernel_cause_explains(ctx.matches)


def uvm_node_after_reboot(ctx: PasteContext) -> None:
    ctx.matches = uvm_node_cause.uvm_node_after_reboot(ctx.lines, ctx.matches)


def fabric_manager(ctx: PasteContext) -> None:
    ctx.matches = fabric_manager_not_needed(ctx.lines, ctx.matches)


def supported_branch(ctx: PasteContext) -> None:
    ctx.matches = supported_branch_rules_out(ctx.lines, ctx.matches)


def cpu_build_wanted(ctx: PasteContext) -> None:
    ctx.matches = gpu_presence.cpu_build_wanted(ctx.lines, ctx.matches)


def build_rules_out(ctx: PasteContext) -> None:
    ctx.matches = guesses_the_build_rules_out(ctx.facts, ctx.matches)


def extension_kernels(ctx: PasteContext) -> None:
    ctx.matches = extension_kernel_matches(ctx.lines, ctx.matches)


def source_build(ctx: PasteContext) -> None:
    ctx.matches = source_builds.source_build_first(
        ctx.matches, source_builds.source_build_match(ctx.lines, ctx.facts.value("torch.version"))
    )


def torch_kernels_run(ctx: PasteContext) -> None:
    ctx.matches = torch_kernels_run_matches(ctx.lines, ctx.matches)


def gpu_absent_said(ctx: PasteContext) -> None:
    ctx.matches = gpu_absent_guesses_out(ctx.lines, ctx.matches)


def unchanged_setup(ctx: PasteContext) -> None:
    ctx.matches = unchanged_guesses_out(ctx.lines, ctx.matches)


def requested_cpu(ctx: PasteContext) -> None:
    ctx.matches = install_intent.requested_cpu_is_no_cause(ctx.lines, ctx.matches, complains=ctx.complains)


def existing_wheel(ctx: PasteContext) -> None:
    ctx.matches = install_intent.existing_wheel_rules_out(ctx.lines, ctx.matches)


def driver_arch(ctx: PasteContext) -> None:
    ctx.matches = driver_rules_out(ctx.facts, ctx.matches)


def named_gpu_arch(ctx: PasteContext) -> None:
    ctx.matches = named_gpu.named_gpu_decides_arch(ctx.lines, ctx.matches)


def cuda_listed_cpu(ctx: PasteContext) -> None:
    ctx.matches = cuda_listed_cpu_running(ctx.lines, ctx.matches)


def soname_of_other_build(ctx: PasteContext) -> None:
    ctx.matches = soname_build.older_torch_imported(ctx.lines, ctx.matches)


def torch_dll_load(ctx: PasteContext) -> None:
    ctx.matches = torch_dll_frames.torch_dll_matches(ctx.lines, ctx.matches)


def working_smi(ctx: PasteContext) -> None:
    ctx.matches = working_smi_rules_out_module(ctx.lines, ctx.matches)


def smi_said_working(ctx: PasteContext) -> None:
    ctx.matches = smi_words.smi_working_rules_out_driver(ctx.lines, ctx.matches)


def unrebooted_driver(ctx: PasteContext) -> None:
    ctx.matches = reboot_words.unrebooted_driver_module_first(ctx.lines, ctx.matches)


def node_without_gpu(ctx: PasteContext) -> None:
    ctx.matches = node_without_gpus(ctx.lines, ctx.matches)


def cluster_smi_missing(ctx: PasteContext) -> None:
    ctx.matches = smi_missing_on_cluster(ctx.lines, ctx.matches)


def default_compute_mode(ctx: PasteContext) -> None:
    ctx.matches = gpu_error_state.default_mode_rules_out_compute_mode(ctx.lines, ctx.matches)


def error_state(ctx: PasteContext) -> None:
    ctx.matches = gpu_error_state.error_state_explains_unavailable(ctx.matches)


def crashed_kernel(ctx: PasteContext) -> None:
    kept = gpu_error_state.crash_explains_unavailable(ctx.matches)
    if len(kept) < len(ctx.matches):  # the rule read the same busy message from the text's warnings
        gpu_error_state.drop_busy_only_verdict(ctx.report)
    ctx.matches = kept


def index_before_cublas(ctx: PasteContext) -> None:
    ctx.matches = assert_before_cublas.assert_explains_cublas(ctx.lines, ctx.matches)


def wddm_compute_mode(ctx: PasteContext) -> None:
    windows_gpu = ctx.facts.value("host.os") == "Windows" or ctx.wsl
    ctx.matches = gpu_error_state.wddm_rules_out_compute_mode(ctx.lines, ctx.matches, windows_gpu=windows_gpu)


def gpu_request_fix_told(ctx: PasteContext) -> None:
    """A GPU request added to the Slurm launch said to fix it (ingest/scheduler_fix_told.py, round 29)."""
    ctx.matches = scheduler_fix_told.request_fix_told(ctx.lines, ctx.matches)


def job_allocation(ctx: PasteContext) -> None:
    ctx.matches = allocation_explains(ctx.matches)


def windows_cpu_build(ctx: PasteContext) -> None:
    """On Windows with nothing more specific, PyPI's CPU build is the likeliest cause: read after every rule-out."""
    windows_cpu = platform_readings.windows_pip_match(
        ctx.lines, ctx.report, ctx.matches
    ) or windows_plain_install_match(ctx.facts, ctx.lines, ctx.matches)
    if windows_cpu is not None:
        ctx.matches = [*ctx.matches, windows_cpu]


def driver_api(ctx: PasteContext) -> None:
    ctx.matches = cuda_driver_api.driver_api_rules_out_cpu_build(ctx.lines, ctx.matches)


def unsupported_uvm(ctx: PasteContext) -> None:
    user_words.drop_unsupported_uvm_verdict(ctx.report, ctx.lines)


def wheel_of_another_python(ctx: PasteContext) -> None:
    ctx.matches = wheel_for_another_python(ctx.lines, ctx.matches)


def import_failure(ctx: PasteContext) -> None:
    ctx.matches = user_words.import_failure_first(ctx.report, ctx.lines, ctx.matches)


def gpu_and_build(ctx: PasteContext) -> None:
    ctx.matches = system_causes.gpu_and_build_shown(ctx.lines, ctx.matches)


def wsl_ldconfig(ctx: PasteContext) -> None:
    ctx.matches = usage_words.harmless_wsl_ldconfig(ctx.lines, ctx.matches)


def hosted_notebook(ctx: PasteContext) -> None:
    ctx.matches = usage_words.hosted_notebook_guesses(ctx.lines, ctx.matches)


def container_access_lost(ctx: PasteContext) -> None:
    ctx.matches = usage_words.access_lost_in_container(ctx.lines, ctx.matches)


def program_hides_gpu(ctx: PasteContext) -> None:
    ctx.matches = usage_words.program_hides_working_gpu(ctx.lines, ctx.matches)


def program_selection(ctx: PasteContext) -> None:
    """The GPUs this process sees: torch's own count first (after any CUDA_VISIBLE_DEVICES), else those listed."""
    seen = ctx.facts.value("cuda.device_count")
    count = seen if isinstance(seen, int) and seen > 0 else view.nvidia_gpus(ctx.facts).count
    ctx.matches = program_devices.program_selection_matches(ctx.lines, ctx.matches, gpu_count=count)


def source_tree(ctx: PasteContext) -> None:
    ctx.matches = source_tree_matches(ctx.lines, ctx.matches)


def set_after_init(ctx: PasteContext) -> None:
    ctx.matches = set_after_init_matches(ctx.lines, ctx.matches)


def jetson_settle(ctx: PasteContext) -> None:
    if ctx.facts.value("platform.jetson"):
        ctx.matches = jetson_texts.settle(
            ctx.lines,
            ctx.matches,
            cuda_13_on_jetpack_7=gpu_stacks.sbsa_jetpack(gpu_stacks.jetson_release(ctx.facts))
            and str(ctx.facts.value("torch.cuda_build") or "").startswith("13"),
            cuda_works=ctx.facts.value("cuda.available") is True,
            cuda_trouble=ctx.cuda_unavailable or ctx.gpu_unused_said,
        )


def jetson_runtime_mounts(ctx: PasteContext) -> None:
    ctx.matches = jetson_mounts.runtime_mount_explains(ctx.matches)


def container_needs_container(ctx: PasteContext) -> None:
    ctx.matches = container_shown.container_guess_needs_container(ctx.lines, ctx.matches)


def installed_driver(ctx: PasteContext) -> None:
    ctx.matches = driver_installed.installed_driver_rules_out_absence(ctx.lines, ctx.matches)


def mac_container_gpu(ctx: PasteContext) -> None:
    ctx.matches = container_hosts.docker_gpu_on_mac(ctx.report, ctx.matches)


def image_platform(ctx: PasteContext) -> None:
    ctx.matches = container_hosts.image_platform_mismatch(ctx.lines, ctx.report, ctx.matches)


def numpy_abi(ctx: PasteContext) -> None:
    ctx.matches = numpy_abi_torch(ctx.lines, ctx.matches)


def numpy_abi_fix(ctx: PasteContext) -> None:
    word_numpy_fix(ctx.report, ctx.lines)
    settle_numpy_warning(ctx.report, ctx.lines)


def merge(ctx: PasteContext) -> None:
    """The matches become findings; what the text rules out is dropped once more (for the guesses added since)."""
    errors.merge(ctx.report, user_words.ruled_out_guesses(ctx.lines, ctx.matches))


# ---- after the merge: steps over the findings ----------------------------------------------------------------


def jetson_findings(ctx: PasteContext) -> None:
    if ctx.facts.value("platform.jetson"):
        jetson_texts.settle_findings(ctx.report, ctx.lines)


def hosted_notebook_fix(ctx: PasteContext) -> None:
    usage_words.hosted_notebook_fix(ctx.report, ctx.lines)


def cluster_launch_fix(ctx: PasteContext) -> None:
    cluster_containers.launch_fix(ctx.report, ctx.lines)


def working_gpu_overrides(ctx: PasteContext) -> None:
    usage_words.working_gpu_overrides_install_blames(ctx.report)


def intended_cpu_build(ctx: PasteContext) -> None:
    install_intent.intended_cpu_build_is_information(ctx.report, ctx.lines)


def unpublished_pin(ctx: PasteContext) -> None:
    unpublished_pin_explain(ctx.report, ctx.lines)


def source_tree_findings(ctx: PasteContext) -> None:
    source_tree_explain(ctx.report, ctx.lines)


def set_after_init_findings(ctx: PasteContext) -> None:
    set_after_init_explain(ctx.report, ctx.lines)
    visible_devices_said.explain_order(ctx.report, ctx.lines)


def numpy_bridge(ctx: PasteContext) -> None:
    numpy_bridge_settle(ctx.report, ctx.lines)


def device_ordinal(ctx: PasteContext) -> None:
    ordinal_without_variable(ctx.report, ctx.lines)


def kernel_noise_yields(ctx: PasteContext) -> None:
    kernel_noise.kernel_guesses_yield_to_working_gpu(ctx.report, ctx.lines)


def fitting_build_settle(ctx: PasteContext) -> None:
    fitting_build.settle(ctx.report, ctx.lines, ctx.said, unavailable_said=ctx.complains)


def driver_fix_names_program(ctx: PasteContext) -> None:
    program_fixes.driver_fix_names_program(ctx.report, ctx.lines)


def nixos_driver_fix(ctx: PasteContext) -> None:
    program_fixes.nixos_driver_fix(ctx.report, ctx.lines)


def windows_driver_fix(ctx: PasteContext) -> None:
    windows_smi.windows_driver_fix(ctx.report, ctx.lines)


def wsl_tcc_fix(ctx: PasteContext) -> None:
    wsl_tcc.tcc_fix(ctx.report, ctx.lines)


def cite_pasted_lines(ctx: PasteContext) -> None:
    """Every finding a rule drew from facts the paste stated cites the line that stated them; a finding that cites a
    pasted line in an error text gets the step that confirms it."""
    report = ctx.report
    for f in report.findings:
        if not any(e.fact == "pasted.line" for e in f.evidence):
            cited = dict.fromkeys(ctx.sources[e.fact] for e in f.evidence if e.fact in ctx.sources)
            f.evidence += [Evidence("pasted.line", f"line {no}: {line}") for no, line in cited]
        # A rule's finding that a pattern match also cited (the match merged into it) gets the confirm step too.
        if (
            any(e.fact == "pasted.line" for e in f.evidence)
            and report.meta.get("source") == "error_text"
            and "To confirm:" not in f.fix
        ):
            f.fix += f"\nTo confirm: {errors.confirm_step(f.id)}"


STEPS: tuple[Step, ...] = (
    # Findings the paths prove come first: later steps (import_failure, fitting_build) weigh the rest against them.
    path_findings,
    remember_said,
    # Rule-outs and platform re-readings before the inferences, which read the matches they leave: a Mac's, WSL's
    # or a Jetson's reading of a driver error replaces the generic one before anything builds on it.
    ruled_out_first,
    mac_cuda_failure,
    found_library,
    os_call_without_wsl,
    macos,
    mac_dispatch_cuda,
    hip_printed,
    driver_present,
    wsl_loader,
    native_windows,
    jetson_without_torch,
    wsl_driver,
    wsl_no_device,
    wsl_no_driver,
    smi_on_windows,
    jetson_system,
    infer,
    wsl_name_alone,
    uvm_reload_after_sleep,
    no_failure_said,
    told_not_shown,
    build_fixed_later,
    device_manager,
    # Settling between the readings: each drops or reorders guesses the ones before it proposed, so a step that
    # removes a guess must come after the inference that adds it (in_container after infer, no_gpu_explains after
    # the lspci and hardware-list inferences, windows_cpu_build after every rule-out it must not contradict).
    cli_cannot_load_driver,
    app_on_cpu,
    torch_in_another_interpreter,
    in_container,
    pod_without_runtime,
    device_plugin_node,
    gpu_less_container,
    insufficient_driver_in_container,
    other_module_kernel_tree,
    init_failed_after_resume,
    nix_driver_dir_on_wsl,
    torch_fix_in_container,
    ngc_banner_request,
    ngc_check_beside_working_gpu,
    no_gpu_explains,
    insufficient_driver_gpuless,
    kernel_cause_explains,
    uvm_node_after_reboot,
    fabric_manager,
    supported_branch,
    cpu_build_wanted,
    build_rules_out,
    extension_kernels,
    source_build,
    torch_kernels_run,
    gpu_absent_said,
    unchanged_setup,
    requested_cpu,
    existing_wheel,
    driver_arch,
    named_gpu_arch,
    cuda_listed_cpu,
    soname_of_other_build,
    torch_dll_load,
    working_smi,
    smi_said_working,
    unrebooted_driver,
    node_without_gpu,
    cluster_smi_missing,
    default_compute_mode,
    error_state,
    crashed_kernel,
    # an out-of-range index beside a cuBLAS status: the assert leads, the status is its echo (round 28)
    index_before_cublas,
    wddm_compute_mode,
    gpu_request_fix_told,
    job_allocation,
    windows_cpu_build,
    driver_api,
    unsupported_uvm,
    wheel_of_another_python,
    import_failure,
    gpu_and_build,
    wsl_ldconfig,
    hosted_notebook,
    container_access_lost,
    program_hides_gpu,
    program_selection,
    source_tree,
    set_after_init,
    jetson_settle,
    jetson_runtime_mounts,
    container_needs_container,
    installed_driver,
    # The host under a container decides last what its GPU error means (a Mac, an image for another CPU).
    mac_container_gpu,
    image_platform,
    # NumPy's C-API check failing: torch's import when the text shows torch importing, else not torch's.
    numpy_abi,
    # The matches become findings here; the steps below read and rewrite findings, not matches.
    merge,
    jetson_findings,
    hosted_notebook_fix,
    cluster_launch_fix,
    working_gpu_overrides,
    intended_cpu_build,
    unpublished_pin,
    source_tree_findings,
    set_after_init_findings,
    numpy_bridge,
    numpy_abi_fix,
    device_ordinal,
    kernel_noise_yields,
    fitting_build_settle,
    # Fix texts worded for what the text shows (another program than torch, NixOS), once the findings are settled.
    driver_fix_names_program,
    nixos_driver_fix,
    windows_driver_fix,
    wsl_tcc_fix,
    # Last: the evidence every finding ends with, once no step adds or replaces a finding.
    cite_pasted_lines,
)


def run(report: Report, lines: list[str], matches: list[errors.Match], sources: Sources) -> None:
    """Add the findings a pasted text shows to ``report``: every step of STEPS, in order."""
    ctx = PasteContext(lines=lines, report=report, matches=matches, sources=sources)
    for step in STEPS:
        step(ctx)
