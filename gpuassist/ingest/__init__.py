"""Offline diagnosis input (``gpuassist diagnose --from``): a gpuassist JSON report, or any text a user
pastes: collect_env output (and its forks), an error message, traceback, REPL or notebook session, a
kernel log, nvidia-smi output, a pip/conda session, alone or mixed. The report names the kinds it read and
what it could not tell. Only text with nothing about Python, PyTorch, CUDA, NVIDIA or a GPU is refused."""

from __future__ import annotations

import json
import re

from gpuassist.facts import Facts
from gpuassist.findings import Evidence
from gpuassist.ingest import (
    cluster_containers,
    code_placement,
    collect_env,
    container_cli_host,
    container_shown,
    cpu_fallback,
    cuda_driver_api,
    cuda_loaders,
    distro_torch,
    driver_installed,
    env_reports,
    errors,
    fitting_build,
    gpu_error_state,
    install_intent,
    interpreters,
    jetson_mounts,
    jetson_texts,
    kernel_noise,
    libcuda_found,
    named_gpu,
    ngc_banner,
    ngc_driver_check,
    os_call_refused,
    paste_causes,
    paste_facts,
    program_devices,
    runtime_config,
    smi_query,
    source_builds,
    system_causes,
    torch_lib_copies,
    torch_rows,
    usage_words,
    user_words,
    windows_device_status,
)
from gpuassist.ingest import kinds as kinds_mod
from gpuassist.ingest.arch_readings import driver_rules_out
from gpuassist.ingest.build_facts import (
    cpu_build_without_version,
    cuda_listed_cpu_running,
    guesses_the_build_rules_out,
    reinstall_without_effect,
    two_torch_copies,
    windows_plain_install_match,
    windows_pypi_build,
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
from gpuassist.ingest.driver_branch import supported_branch_rules_out, unsupported_branch_match
from gpuassist.ingest.extension_kernels import extension_kernel_matches
from gpuassist.ingest.fabric import fabric_manager_not_needed
from gpuassist.ingest.gpuless_machine import stated_gpuless_machine
from gpuassist.ingest.igpu_only import NOUVEAU_PROBE, integrated_only_match
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
from gpuassist.ingest.report_json import looks_like_json, parse_report
from gpuassist.ingest.text import MAX_BYTES, UnreadableInput, clean_lines, decode
from gpuassist.ingest.tool_interpreters import installer_of_another_python
from gpuassist.ingest.torch_source_tree import explain as source_tree_explain
from gpuassist.ingest.torch_source_tree import source_tree_matches
from gpuassist.ingest.unpublished_pin import explain as unpublished_pin_explain
from gpuassist.ingest.unpublished_pin import unpublished_variant_match
from gpuassist.ingest.visible_devices_order import explain as set_after_init_explain
from gpuassist.ingest.visible_devices_order import set_after_init_matches
from gpuassist.ingest.wsl_no_device import wsl_no_device_first
from gpuassist.report.build import build_report
from gpuassist.report.model import Report
from gpuassist.rules import gpu_stacks, view

__all__ = ["UnreadableInput", "load", "load_text"]


def load(data: bytes, *, label: str = "the input") -> Report:
    return load_text(decode(data), label=label)


def _field_line(lines: list[str], parsed: collect_env.CollectEnvParse, name: str) -> tuple[int, str] | None:
    for no in sorted(parsed.field_lines):
        found = collect_env.field_name(lines[no - 1])
        if found == name:
            return no, lines[no - 1].strip()
    return None


# A Python dict's repr: "{'key': ..." (JSON quotes its keys with double quotes).
PYTHON_DICT = re.compile(r"\{\s*'")


def _is_json(text: str) -> bool:
    """A text that starts with ``{`` is meant as JSON (a report), unless it is a Python dict's repr; one that
    starts with ``[`` only if it parses: a kernel log line ``[12345.678] NVRM: ...`` starts with a bracket too."""
    if not looks_like_json(text):
        return False
    stripped = text.lstrip()
    if PYTHON_DICT.match(stripped):
        return False  # a Python dict printed by a tool (mmcv's collect_env()): its keys are in single quotes
    if stripped.startswith("{"):
        return True
    try:
        json.loads(stripped)
    except (ValueError, RecursionError):
        return False
    return True


# pip found no torch build to install for this Python / platform.
NO_TORCH_DIST = re.compile(
    r"No matching distribution found for (?:py)?torch\b|"
    r"Could not find a version that satisfies the requirement (?:py)?torch\b"
)
TORCH_INSTALL = re.compile(
    r"\b(?:pip3?|conda|mamba|micromamba|uv pip)\s+(?:install|create)\b[^\n]*\b(?:py)?torch\b|"
    r"^\[(?:pip\d?|conda)\]\s+(?:py)?torch[\s=]",
    re.IGNORECASE,
)


def _torch_not_importable(lines: list[str], parsed: collect_env.CollectEnvParse, facts: Facts) -> list[errors.Match]:
    """collect_env prints "PyTorch version: N/A" when `import torch` raised. If the paste shows torch installed
    (the package lists, an install command), the import failed; otherwise torch may simply not be installed."""
    version = parsed.fields.get("torch_version", "").strip().lower()
    if facts.known("torch.version") or version not in ("n/a", "na", "none", "could not collect"):
        return []
    field = _field_line(lines, parsed, "torch_version")
    if field is None:
        return []
    no, line = field
    if any(NO_TORCH_DIST.search(x[:2000]) for x in lines):
        return []  # pip found no torch to install: the paste says why it is missing (no_wheel_for_platform)
    installed = bool(facts.value("torch.dists")) or any(TORCH_INSTALL.search(x[:2000]) for x in lines)
    if installed:
        return [
            errors.Match("torch_import_error", no, line, False, 0.8),
            errors.Match("torch_not_installed", no, line, False, 0.3),
        ]
    return [
        errors.Match("torch_not_installed", no, line, False, 0.7),
        errors.Match("torch_import_error", no, line, False, 0.5),
    ]


def _could_not_tell(facts: Facts, kinds: list[kinds_mod.InputKind]) -> list[str]:
    """What a verdict would need that the pasted text does not say."""
    out = []
    if not facts.known("torch.version"):
        out.append("which torch build runs (paste `python -m torch.utils.collect_env`)")
    if not facts.known("driver.version") and not facts.known("cuda.driver_version"):
        out.append("the NVIDIA driver version (`nvidia-smi`)")
    if not facts.known("reported.gpus"):
        out.append("the GPU model")
    if not kinds:
        out.append("any tool output or error message: the text only talks about the problem")
    return out


def load_text(text: str, *, label: str = "the input") -> Report:
    if len(text) > MAX_BYTES:  # a paste box has no size limit of its own
        raise UnreadableInput(
            f"the input is larger than {MAX_BYTES // (1024 * 1024)} MiB; a report or paste is far smaller"
        )
    if _is_json(text):
        report = parse_report(text)
        report.meta.setdefault("source_label", label)
        report.meta["reopened_from"] = label
        return report
    lines = clean_lines(text)
    parsed = collect_env.parse(lines)
    kinds = kinds_mod.detect(lines, collect_env=parsed.recognised, skip=parsed.field_lines)
    matches = paste_causes.adjust_matches(lines, errors.match_lines(lines))
    sources: Sources = {}
    extra = paste_facts.gather(lines, parsed.field_lines, sources)
    # A tool's own output wins over the user's words, and those over a setting read from a command or script.
    extra = {
        **named_gpu.bare_model_facts(lines, sources),
        **program_devices.program_visible_devices_facts(lines, sources),
        **usage_words.visible_devices_facts(lines, sources),
        **user_words.stated_facts(lines, sources),
        **fitting_build.accelerator_facts(lines, sources),
        **extra,
    }
    program_devices.resolve_shell_value(extra, lines, sources)
    if parsed.recognised and not _filled_in_template(lines, parsed, matches):
        # collect_env's own field lines are read as facts by the parser; matching them again as error text
        # would turn "CUDA used to build PyTorch: None" on a Mac, or the WSL kernel name of a healthy WSL2
        # machine, into a claimed cause. Prose and torch's warnings around the fields still count.
        matches = [m for m in matches if m.line_no not in parsed.field_lines]
        merged = {**extra, **collect_env.to_facts(parsed)}
        windows_pypi_build(merged, lines, sources)  # collect_env's own "Python platform: Windows-..." is known now
        facts = Facts(merged)
        report = build_report(
            facts,
            source="collect_env",
            meta={
                "source_label": f"{kinds_mod.describe(kinds)} ({label})",
                "input_kinds": [k.id for k in kinds],
                "missing_facts": [
                    *parsed.missing,
                    *(torch_rows.cut_package_list(lines) or torch_rows.cut_before_selected_pytorch(lines)),
                ],
            },
            ran=set(),
        )
        if (
            facts.value("cuda.available") is False
            and facts.value("torch.cuda_build")
            and not report.has_error
            and not any(m.specific for m in matches)
        ):
            matches += errors.unavailable_guesses(
                parsed.fields, _field_line(lines, parsed, "cuda_available"), bool(parsed.gpu_lines)
            )
        matches += _torch_not_importable(lines, parsed, facts)
        _add_paste_findings(report, lines, matches, sources)
        return report
    if not matches and not extra and kinds_mod.only_generic(kinds) and not kinds_mod.about_the_topic(text):
        raise UnreadableInput(
            "found nothing about Python, PyTorch, CUDA, NVIDIA or a GPU in it (paste the output of "
            "`python -m torch.utils.collect_env`, the error message, or run `gpuassist diagnose` on that machine)"
        )
    template = collect_env.to_facts(parsed) if parsed.recognised else {}
    facts = Facts(
        {**cuda_driver_api.driver_facts(lines), **template, **extra, **errors.facts_from_text(lines, matches)}
    )
    matches = env_reports.platform_field_guesses(lines, matches, cuda_works=facts.value("cuda.available") is True)
    report = build_report(
        facts,
        source="error_text",
        meta={
            "source_label": f"{kinds_mod.describe(kinds)} ({label})",
            "input_kinds": [k.id for k in kinds],
            "missing_facts": [
                *_could_not_tell(facts, kinds),
                "the machine's own facts: run `gpuassist diagnose` on that machine to confirm",
            ],
        },
        ran=set(),
    )
    _add_paste_findings(report, lines, matches, sources)
    if not report.findings:
        report.meta["inconclusive"] = True
        report.meta["missing_facts"].insert(0, "the cause: nothing in the text names one")
    return report


def _add_paste_findings(report: Report, lines: list[str], matches: list[errors.Match], sources: Sources) -> None:
    """Findings only the paste's paths show (the library or torch copy to blame), then the pattern matches;
    every finding a rule drew from facts the paste stated cites the line that stated them."""
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
    said = [m.line for m in matches]  # the error messages the text itself carries, before any inference
    # What the text rules out goes before any reading builds on it (and again below for the guesses added later).
    matches = user_words.ruled_out_guesses(lines, user_words.unknown_error_matches(lines, matches))
    if report.facts.value("host.os") == "Darwin" and report.facts.value("platform.rosetta") is not True:
        unavailable = report.facts.value("cuda.available") is False or _says_unavailable(lines)
        mac = user_words.mac_cuda_failure(lines, matches, unavailable=unavailable)
        matches = matches if mac is None else [*matches, mac]
    matches = libcuda_found.drop_found_library_readings(matches)
    matches = os_call_refused.os_call_without_wsl(lines, matches, wsl=report.facts.value("platform.wsl") is not None)
    matches = _driver_present_matches(lines, report, _macos_matches(lines, report, matches))
    matches = cuda_loaders.wsl_loader_without_libcuda(report.facts.value("platform.wsl") is not None, matches)
    matches = cuda_loaders.native_windows_drops_wsl_path(
        report.facts.value("host.os"), report.facts.value("platform.wsl") is not None, matches
    )
    matches = _wsl_driver_matches(report, _jetson_without_torch(lines, matches))
    matches = wsl_no_device_first(report.facts.value("platform.wsl") is not None, matches)
    matches = container_shown.wsl_no_driver_first(report.facts.value("platform.wsl") is not None, matches)
    if report.facts.value("platform.jetson"):
        matches = system_causes.jetson_source_build_expected(
            matches,
            cuda_trouble=report.facts.value("cuda.available") is False
            or _says_unavailable(lines)
            or system_causes.says_gpu_unused(lines),
        )
        matches = system_causes.jetson_cuda_library_missing(lines, matches)
        matches = system_causes.jetson_container_release_mismatch(lines, matches)
    for inferred in (
        _jetson_match(lines, report, matches),
        _visible_devices_match(lines, report),
        _container_run_match(lines, report),
        container_started_without_gpu(lines),
        run_without_gpu_beside_host_report(lines, host_cuda_works=report.facts.value("cuda.available") is True),
        compose_without_gpu_reservation(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        _container_smi_match(lines, report),
        _container_without_compute_match(lines, report),
        _compose_match(lines, report),
        _display_devices_match(lines),
        _stated_graphics_match(lines, report),
        None if report.facts.known("reported.gpus") else user_words.stated_non_nvidia_graphics(lines),
        None
        if report.facts.known("reported.gpus") or report.facts.known("driver.version")
        else integrated_only_match(lines),
        user_words.cpu_torch_in_words(lines) or cuda_less_torch_in_words(lines),
        distro_torch.distro_cpu_torch_match(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        user_words.mig_in_words(lines),
        user_words.visible_devices_fix_reported(
            lines,
            no_device=report.facts.value("cuda.available") is False
            or _says_unavailable(lines)
            or any(m.id == "cuda_visible_devices_hides_gpus" for m in matches),
        ),
        usage_words.gpu_waits_for_data(
            lines, user_words.loader_starves_gpu_in_words(lines) or workers_zero_starves(lines)
        ),
        usage_words.work_left_on_cpu(
            lines,
            cuda_available=report.facts.value("cuda.available"),
            gpu_unused_said=system_causes.says_gpu_unused(lines),
        ),
        code_placement.loop_without_placement(lines),
        usage_words.memory_kept_after_stop(lines, matches),
        usage_words.holders_listed(lines, matches),
        usage_words.visible_devices_hide_gpus(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        usage_words.compute_mode_prohibited(lines),
        usage_words.workload_without_gpu_request(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        user_words.slurm_step_without_gpu(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        quoted_job_without_gpu(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        user_words.memory_not_released(lines),
        user_words.nouveau_without_driver(lines),
        user_words.other_job_on_gpu(lines, matches),
        user_words.works_in_own_check_not_app(lines),
        user_words.visible_devices_hide_all(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        _cpu_machine_match(lines, matches),
        system_causes.nouveau_bound_match(lines, matches),
        secure_boot_blocks_module(lines, matches),
        lsmod_empty_match(lines),
        kernel_update_match(lines, matches),
        nouveau_holds_gpu_match(lines, matches),
        init_error_after_suspend_match(lines, matches),
        integrated_graphics_mode_match(
            lines, matches, unreachable=_says_unavailable(lines) or system_causes.says_gpu_unused(lines)
        ),
        no_driver_packages_match(lines),
        unsupported_branch_match(
            lines, matches, unreachable=_says_unavailable(lines) or system_causes.says_gpu_unused(lines)
        ),
        dkms_not_built_for_running_kernel(
            lines, matches, unreachable=_says_unavailable(lines) or system_causes.says_gpu_unused(lines)
        ),
        gpu_off_bus_match(lines),
        instance_without_gpu_match(
            lines, unavailable=report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        lspci_without_nvidia_match(lines),
        device_plugin_without_runtime_match(lines),
        runtime_config.default_runtime_missing_match(lines),
        jetson_mounts.jetson_container_without_runtime(lines),
        ngc_driver_check.ngc_driver_too_old_match(lines),
        uvm_device_missing_match(lines),
        singularity_without_driver_match(
            lines, report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        toolkit_ldconfig_match(lines),
        smi_query.throttling_match(lines),
        cluster_containers.container_launch_without_gpu(
            lines, report.facts.value("cuda.available") is False or _says_unavailable(lines)
        ),
        login_node_match(lines, report.facts.value("cuda.available") is False or _says_unavailable(lines)),
        system_causes.container_gpu_listing_without_toolkit(lines),
        system_causes.recurring_app_xid_match(lines),
        system_causes.machine_without_nvidia_gpu_match(lines),
        stated_gpuless_machine(lines),
        image_without_smi(lines),
        requested_gpus_not_in_job(lines),
        _smi_memory_held_match(lines, matches),
        _two_interpreters_match(lines),
        installer_of_another_python(lines),
        interpreters.cuda_differs_between_interpreters(lines),
        paste_causes.works_elsewhere_match(lines),
        cpu_build_without_version(report.facts, sources),
        two_torch_copies(lines),
        reinstall_without_effect(lines, report.facts),
        unpublished_variant_match(lines),
    ):
        if inferred is not None:
            matches = [*matches, inferred]
    matches = [*matches, *windows_device_status.device_manager_matches(lines)]
    matches = container_cli_host.cli_cannot_load_driver(lines, matches)
    matches = cpu_fallback.app_on_cpu_matches(lines, report.facts, matches)
    if any(m.id == "wrong_interpreter_or_kernel" and m.specific for m in matches):
        # The text shows torch importing in another interpreter: "No module named torch" is that program's
        # interpreter lacking it, not torch missing from the machine.
        matches = [m for m in matches if m.id != "torch_not_installed"]
    matches = system_causes.device_plugin_node_has_driver(lines, _in_container_matches(lines, report, matches))
    matches = _gpu_less_container_matches(lines, report, matches)
    matches = ngc_banner.banner_with_gpu_request(
        lines, matches, compose_gpu=any(COMPOSE_GPU.search(line[:2000]) for line in lines)
    )
    matches = fabric_manager_not_needed(lines, system_causes.kernel_cause_explains(_no_gpu_explains(matches)))
    matches = supported_branch_rules_out(lines, matches)
    matches = guesses_the_build_rules_out(report.facts, _cpu_build_wanted(lines, matches))
    matches = extension_kernel_matches(lines, matches)
    matches = source_builds.source_build_first(
        matches, source_builds.source_build_match(lines, report.facts.value("torch.version"))
    )
    matches = install_intent.existing_wheel_rules_out(
        lines,
        install_intent.requested_cpu_is_no_cause(
            lines, matches, complains=_says_unavailable(lines) or system_causes.says_gpu_unused(lines)
        ),
    )
    matches = driver_rules_out(report.facts, matches)
    matches = named_gpu.named_gpu_decides_arch(lines, matches)
    matches = working_smi_rules_out_module(lines, cuda_listed_cpu_running(lines, matches))
    matches = smi_missing_on_cluster(lines, node_without_gpus(lines, matches))
    matches = gpu_error_state.error_state_explains_unavailable(
        gpu_error_state.default_mode_rules_out_compute_mode(lines, matches)
    )
    matches = gpu_error_state.wddm_rules_out_compute_mode(
        lines,
        matches,
        windows_gpu=report.facts.value("host.os") == "Windows" or report.facts.value("platform.wsl") is not None,
    )
    matches = allocation_explains(matches)
    windows_cpu = _windows_pip_match(lines, report, matches) or windows_plain_install_match(
        report.facts, lines, matches
    )
    if windows_cpu is not None:
        matches = [*matches, windows_cpu]
    matches = cuda_driver_api.driver_api_rules_out_cpu_build(lines, matches)
    user_words.drop_unsupported_uvm_verdict(report, lines)
    matches = user_words.import_failure_first(report, lines, matches)
    matches = system_causes.gpu_and_build_shown(lines, matches)
    matches = usage_words.hosted_notebook_guesses(lines, usage_words.harmless_wsl_ldconfig(lines, matches))
    matches = usage_words.program_hides_working_gpu(lines, usage_words.access_lost_in_container(lines, matches))
    # The GPUs this process sees: torch's own count first (after any CUDA_VISIBLE_DEVICES), else those listed.
    seen = report.facts.value("cuda.device_count")
    matches = program_devices.program_selection_matches(
        lines, matches, gpu_count=seen if isinstance(seen, int) and seen > 0 else view.nvidia_gpus(report.facts).count
    )
    matches = set_after_init_matches(lines, source_tree_matches(lines, matches))
    if report.facts.value("platform.jetson"):
        matches = jetson_texts.settle(
            lines,
            matches,
            cuda_13_on_jetpack_7=gpu_stacks.sbsa_jetpack(gpu_stacks.jetson_release(report.facts))
            and str(report.facts.value("torch.cuda_build") or "").startswith("13"),
            cuda_works=report.facts.value("cuda.available") is True,
            cuda_trouble=report.facts.value("cuda.available") is False
            or _says_unavailable(lines)
            or system_causes.says_gpu_unused(lines),
        )
    matches = jetson_mounts.runtime_mount_explains(matches)
    matches = container_shown.container_guess_needs_container(lines, matches)
    matches = driver_installed.installed_driver_rules_out_absence(lines, matches)
    errors.merge(report, user_words.ruled_out_guesses(lines, matches))
    if report.facts.value("platform.jetson"):
        jetson_texts.settle_findings(report, lines)
    usage_words.hosted_notebook_fix(report, lines)
    cluster_containers.launch_fix(report, lines)
    usage_words.working_gpu_overrides_install_blames(report)
    install_intent.intended_cpu_build_is_information(report, lines)
    unpublished_pin_explain(report, lines)
    source_tree_explain(report, lines)
    set_after_init_explain(report, lines)
    numpy_bridge_settle(report, lines)
    ordinal_without_variable(report, lines)
    kernel_noise.kernel_guesses_yield_to_working_gpu(report, lines)
    fitting_build.settle(
        report, lines, said, unavailable_said=_says_unavailable(lines) or system_causes.says_gpu_unused(lines)
    )
    for f in report.findings:
        if not any(e.fact == "pasted.line" for e in f.evidence):
            cited = dict.fromkeys(sources[e.fact] for e in f.evidence if e.fact in sources)
            f.evidence += [Evidence("pasted.line", f"line {no}: {line}") for no, line in cited]
        # A rule's finding that a pattern match also cited (the match merged into it) gets the confirm step too.
        if (
            any(e.fact == "pasted.line" for e in f.evidence)
            and report.meta.get("source") == "error_text"
            and "To confirm:" not in f.fix
        ):
            f.fix += f"\nTo confirm: {errors.confirm_step(f.id)}"


BULLET = re.compile(r"^\s*[-*\u2022]\s*\S")


def _filled_in_template(lines: list[str], parsed: collect_env.CollectEnvParse, matches: list[errors.Match]) -> bool:
    """An issue template's bullets filled in by hand ("- PyTorch version: 1.4.0", "- OS: Ubuntu18.04") under an
    error: the error is the paste, the bullets only add facts. collect_env's own output has no bullets."""
    return (
        bool(matches)
        and not parsed.gpu_lines
        and not parsed.libraries
        and all(BULLET.match(lines[no - 1]) for no in parsed.field_lines)
    )


# The text says CUDA does not work ("is_available() returns False", "CPU-only version", "CUDA not available").
UNAVAILABLE = re.compile(
    r"is_available(?:\(\))?\)?\s*(?:returns?|returned|is|=+|->|:|gives|#\s*(?:returns?\s*)?)?\s*(?:i get\s+)?false|"
    r"is_available\b[^\n]{0,24}?\b(?:returns?|returned|gives|gave|shows?|showed|prints?|printed)\s+"
    r"(?:me\s+)?[`'\"]?false|"
    r"\b(?:returns?|returned|gives|prints?)\s+[`'\"]?false[`'\"]?\W{0,4}(?:torch\.)?(?:cuda\.)?is_available|"
    r"CUDA (?:is )?(?:not\s+|un)available|CPU[- ]only (?:version|build|wheel)|"
    r"no CUDA GPUs are available|no CUDA-capable device|"
    # AUTOMATIC1111's launcher (modules/launch_utils.py) when torch.cuda.is_available() is False
    r"Torch is not able to use GPU|"
    # YOLOv5 / Ultralytics' select_device refusing the first GPU: no CUDA device at all (utils/torch_utils.py).
    r"Invalid CUDA '(?:--device |device=)(?:0|cuda)' requested|"
    r"is_available(?:\(\))?\s*(?:就是|都是|还是|仍然是|一直是|是|为|返回|显示|输出)\s*false",
    re.IGNORECASE,
)
# A `docker run` (or podman) command line that gives the container no GPU.
CONTAINER_RUN = re.compile(r"\b(?:docker|podman|nerdctl)\s+run\b")
GPU_FLAGS = re.compile(
    r"--gpus\b|--runtime[= ]nvidia|--device[= ]\S*nvidia\.com/gpu|NVIDIA_VISIBLE_DEVICES|nvidia-docker"
)
CONTAINER_IMAGE = re.compile(
    r"\b(?:docker|podman|container)\s+(?:image|container)\b|\bin (?:the |a |my )?(?:docker|"
    r"podman)\b|\b(?:docker|podman) (?:pull|run|exec)\b",
    re.IGNORECASE,
)
# The value's own quotes are optional around a number and a pair for the empty value ('= ""').
VISIBLE_SET = re.compile(r"CUDA_VISIBLE_DEVICES\s*[\"']?\]?\s*=\s*(?:\"\"|''|[\"']?(?:-1|\d+(?:,\d+)*))")


GENERIC_WHEEL = re.compile(
    r"manylinux|\bpypi\b|pip3? install torch\b|\+cpu\b|CPU[- ]only|download\.pytorch\.org|"
    r"(?:binaries|wheels?|builds?|packages?) from (?:the )?pytorch(?:\.org| website| site)|pytorch(?:\.org)? website|"
    r"conda-forge",
    re.IGNORECASE,
)


def _says_unavailable(lines: list[str]) -> bool:
    """The text says CUDA does not work, also across a line break ("is_available()\\n i get false")."""
    text = "\n".join(line[:2000] for line in lines[:5000])
    return UNAVAILABLE.search(re.sub(r"\s*\n\s*", " ", text)) is not None or user_words.says_gpu_not_detected(text)


def _visible_devices_match(lines: list[str], report: Report) -> errors.Match | None:
    """CUDA_VISIBLE_DEVICES set in the text (export, env prefix, os.environ) while CUDA sees no GPU: one of the
    likely causes (an index that does not exist, -1, or an empty value hides the GPUs)."""
    hit = next(((no, line) for no, line in enumerate(lines, start=1) if VISIBLE_SET.search(line[:2000])), None)
    if hit is None or report.facts.value("cuda.available") is True or not _says_unavailable(lines):
        return None
    return errors.Match("cuda_visible_devices_hides_gpus", hit[0], hit[1].strip()[:500], False, 0.7)


def _container_run_match(lines: list[str], report: Report) -> errors.Match | None:
    """The paste shows the container started without a GPU (no --gpus / NVIDIA runtime / CDI device) and CUDA
    unavailable or nvidia-smi missing inside it: the container was never given the GPU."""
    run = next(
        (
            (no, line)
            for no, line in enumerate(lines, start=1)
            if CONTAINER_RUN.search(line[:2000]) and not GPU_FLAGS.search(line[:2000])
        ),
        None,
    )
    if report.facts.value("cuda.available") is True or any(
        GPU_FLAGS.search(line[:2000]) or COMPOSE_GPU.search(line[:2000]) for line in lines
    ):
        return None
    if run is None:
        # No run command, only words: "I pulled the official docker image ... is_available() = False". Then the
        # container not being given the GPU is one of the likely causes, not a verdict.
        said = next(((no, line) for no, line in enumerate(lines, start=1) if CONTAINER_IMAGE.search(line[:2000])), None)
        if said is None or not _says_unavailable(lines):
            return None
        return errors.Match("docker_no_gpu_runtime", said[0], said[1].strip()[:500], False, 0.6)
    no_gpu = (
        report.facts.value("cuda.available") is False
        or _says_unavailable(lines)
        or any(NO_SMI.search(line[:2000]) for line in lines)
    )
    if not no_gpu:
        return None
    return errors.Match("docker_no_gpu_runtime", run[0], run[1].strip()[:500], True, 0.9)


# Inside a container that was given no GPU, the driver cannot be reached: nvidia-smi and NVML fail, CUDA finds no
# driver. The same lines on a host would mean the kernel module is not loaded.
GPU_UNREACHABLE = re.compile(
    r"NVIDIA-SMI has failed because it couldn't communicate|Failed to initialize NVML: (?:Unknown Error|"
    r"Driver Not Loaded)|Found no NVIDIA driver on your system",
    re.IGNORECASE,
)
HOST_DRIVER_READINGS = ("nvidia_module_not_loaded", "no_nvidia_driver", "no_nvidia_gpu", "container_gpu_access_lost")


def _gpu_less_container_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """A `docker run` without any GPU request (no --gpus, NVIDIA runtime or CDI device anywhere in the text), then the
    driver unreachable after it (nvidia-smi cannot communicate, NVML or CUDA find no driver): the container was never
    given the GPU. Mounting the host's nvidia-smi or libraries into it by hand does not give it the device nodes.
    Read as host facts, those lines would blame the host's kernel module, which the container cannot see."""
    if report.facts.value("cuda.available") is True or any(
        GPU_FLAGS.search(line[:2000]) or COMPOSE_GPU.search(line[:2000]) for line in lines
    ):
        return matches
    run = next((no for no, line in enumerate(lines, start=1) if CONTAINER_RUN.search(line[:2000])), None)
    if run is None:
        return matches
    failed = next(
        ((no, line) for no, line in enumerate(lines, start=1) if no > run and GPU_UNREACHABLE.search(line[:2000])), None
    )
    if failed is None:
        return matches
    kept = [
        m for m in matches if not (m.id in HOST_DRIVER_READINGS and m.line_no > run) and m.id != "docker_no_gpu_runtime"
    ]
    return [*kept, errors.Match("docker_no_gpu_runtime", run, lines[run - 1].strip()[:500], True, 0.9)]


# A shell or notebook in a container says nvidia-smi is missing ("nvidia-smi: command not found", "both nvcc and
# nvidia-smi not found").
NO_SMI = re.compile(
    r"nvidia-smi\W{0,3}(?:command )?not found|nvidia-smi\b[^.\n]{0,40}\bnot found|"
    r"\bnot found\b[^.\n]{0,30}\bnvidia-smi",
    re.IGNORECASE,
)
CONTAINER_WORDS = re.compile(
    r"\b(?:docker|container|podman|kubernetes|kubectl|pod|nvidia-docker|compose)\b", re.IGNORECASE
)
# A Compose / Kubernetes GPU request: the way the container was (meant to be) given the GPU.
COMPOSE_GPU = re.compile(
    r"capabilities:\s*\[?\s*['\"]?gpu|\bdriver:\s*['\"]?nvidia\b|\bruntime:\s*nvidia\b|"
    r"nvidia\.com/gpu:\s*['\"]?\d",
    re.IGNORECASE,
)
NOT_WORKING = re.compile(
    r"\b(?:don'?t|doesn'?t|does not|do not|is not|isn'?t|not|never)\s+work|"
    r"\bnot (?:detected|visible|found|available|recogni[sz]ed)\b|detection fail|"
    r"\bno (?:access to (?:the )?)?gpus?\b",
    re.IGNORECASE,
)
# lspci's display devices: a machine or VM whose only display adapters are not NVIDIA has no NVIDIA GPU to use.
LSPCI_DISPLAY = re.compile(
    r"^[`'\s]*(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s+(?:VGA compatible controller|"
    r"3D controller|Display controller)\b[^:]*:\s*(?P<device>.+)",
    re.IGNORECASE,
)
VIRTUAL_DISPLAY = re.compile(
    r"VMware SVGA|VirtualBox|QXL|Cirrus Logic|Virtio|Hyper-V|bochs|Red Hat, Inc\. Virtio", re.IGNORECASE
)
# The user says the machine has no GPU or that they run on the CPU: "Found no NVIDIA driver" then means no GPU.
CPU_MACHINE = re.compile(
    r"\b(?:i am|i'm|we are|we're|while|when|i was)\s+(?:using|running on|running it on|on)\s+"
    r"(?:the\s+|a\s+|my\s+)?cpu\b|"
    r"\bwithout (?:a |any )?(?:nvidia )?gpus?\b|\b(?:has|have) no (?:nvidia )?gpus?\b|"
    r"\bcpu[- ]only (?:machine|server|computer|laptop|environment|instance|node|vm)s?\b|"
    r"(?:使用|用)的?是\s*cpu|没有(?:独立)?(?:显卡|gpu)",
    re.IGNORECASE,
)


# On a Mac these messages only say that CUDA does not exist there.
MAC_CUDA_SYMPTOMS = (
    "cpu_only_build",
    "source_build_without_cuda",
    "driver_too_old",  # "CUDA driver version is insufficient" from CuPy and others: there is no CUDA driver at all
    "nvidia_module_not_loaded",
    "no_nvidia_driver",
    "no_nvidia_gpu",
    "macos_no_cuda_use_mps",
)


# conda's "PackagesNotFoundError: ... not available from current channels:" lists a CUDA package
# ("  - cudatoolkit=11.3", "  - pytorch-cuda=12.1*").
CONDA_NOT_FOUND = re.compile(r"PackagesNotFoundError|PackageNotFoundError|ResolvePackageNotFound")
CONDA_CUDA_MISSING = re.compile(
    r"^\s*-\s*(?:cudatoolkit|pytorch-cuda|cuda-toolkit|cuda-runtime|cuda\d{2,3})\b[=<>.\d*\s]*$"
)
# pip was asked for a CUDA build: a CUDA wheel index (…/whl/cu121, …/whl/nightly/cu128) or a +cuXYZ version.
CUDA_BUILD_REQUEST = re.compile(
    r"download\.pytorch\.org/whl/(?:nightly/|test/)?cu\d{2,3}\b|\btorch==[\d.]+\+cu\d{2,3}\b"
)


def _macos_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """The paste shows a Mac and CUDA failing ("Torch not compiled with CUDA enabled", no driver): macOS has no CUDA,
    the answer is MPS, not a CUDA build of torch. The symptom matches give way to that cause. So does pip finding
    no wheel when it was asked for a CUDA build: CUDA wheels are never built for macOS."""
    if report.facts.value("host.os") != "Darwin" or report.facts.value("platform.rosetta") is True:
        return matches
    symptoms: tuple[str, ...] = MAC_CUDA_SYMPTOMS
    if any(CUDA_BUILD_REQUEST.search(line[:2000]) for line in lines):
        symptoms = (*MAC_CUDA_SYMPTOMS, "no_wheel_for_platform")
    symptom = next((m for m in matches if m.id in symptoms), None)
    if symptom is None:
        # conda found no CUDA package to install (cudatoolkit, pytorch-cuda): none exists for macOS.
        missing = next(
            ((no, line) for no, line in enumerate(lines, start=1) if CONDA_CUDA_MISSING.match(line[:2000])), None
        )
        if missing is None or not any(CONDA_NOT_FOUND.search(line[:2000]) for line in lines):
            return matches
        return [*matches, errors.Match("macos_no_cuda_use_mps", missing[0], missing[1].strip()[:500], True, 0.9)]
    kept = [m for m in matches if m.id not in symptoms]
    return [*kept, errors.Match("macos_no_cuda_use_mps", symptom.line_no, symptom.line, True, 0.9)]


# The driver's library loads (a REPL's ctypes handle, an ldd line, a framework's log): the driver is there.
LIBCUDA_LOADED = re.compile(
    r"<CDLL '[^']*libcuda\.so\.1'|^\s*libcuda\.so\.1 => /|opened dynamic library libcuda\.so\.1"
)
NO_DRIVER_GUESSES = ("no_nvidia_driver", "no_nvidia_gpu")


def _driver_present_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """When the text shows the driver library loading, or runs in WSL 2 (whose driver is Windows'), "no driver" and
    "no GPU" are not possible readings of a libcuda failure; in WSL 2 that failure is WSL's own libcuda path."""
    loaded = any(LIBCUDA_LOADED.search(line[:2000]) or libcuda_found.shows_library_found(line[:2000]) for line in lines)
    wsl2 = report.facts.value("platform.wsl") == "wsl2"
    if not loaded and not wsl2:
        return matches
    out = [m for m in matches if not (m.id in NO_DRIVER_GUESSES and not m.specific)]
    if wsl2:
        out = [
            errors.Match(m.id, m.line_no, m.line, True, m.weight)
            if m.id == "wsl_libcuda_problem" and "libcuda" in m.line
            else m
            for m in out
        ]
        # WSL 2's driver libraries (libcuda, libnvidia-ml) come from Windows through /usr/lib/wsl/lib: one that
        # cannot be loaded there is WSL's GPU path (a Windows build or driver without WSL GPU support), whoever
        # loads it (CUDA, nvidia-smi, the container toolkit).
        if not any(m.id == "wsl_libcuda_problem" and m.specific for m in out):
            library = next(
                (m for m in matches if m.id in NO_DRIVER_GUESSES and WSL_DRIVER_LIBRARY.search(m.line)), None
            )
            if library is not None:
                out.append(errors.Match("wsl_libcuda_problem", library.line_no, library.line, True, 0.9))
    return out


WSL_DRIVER_LIBRARY = re.compile(r"\blib(?:cuda|nvidia-ml)\.so|\bNVML\b", re.IGNORECASE)


# Readings of an NVIDIA-driver failure that assume a Linux kernel module, which WSL does not have.
# WSL has no NVIDIA kernel modules (nor nvidia_uvm): their readings there are WSL's GPU path.
KERNEL_MODULE_READINGS = ("nvidia_module_not_loaded", "uvm_wedged_after_suspend")


def _wsl_driver_matches(report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """Inside WSL there is no NVIDIA kernel module to load: the GPU is reached through the Windows driver (/dev/dxg
    and /usr/lib/wsl/lib). nvidia-smi failing to "communicate with the NVIDIA driver" there means WSL's GPU path is
    broken (WSL 1, a Windows build or driver without WSL GPU support, a Linux driver installed inside WSL), so
    the kernel-module reading of that line becomes WSL's."""
    if report.facts.value("platform.wsl") is None:
        return matches
    out = []
    for m in matches:
        if m.id in KERNEL_MODULE_READINGS:
            out.append(errors.Match("wsl_libcuda_problem", m.line_no, m.line, m.specific, m.weight))
        else:
            out.append(m)
    return out


def _jetson_without_torch(lines: list[str], matches: list[errors.Match]) -> list[errors.Match]:
    """A Tegra kernel name alone (a monitoring log, a kernel banner) says the machine is a Jetson, not that torch
    is the wrong build there: the JetPack-wheel guess needs torch to be in the text at all."""
    if any(TORCH_NAMED.search(line[:2000]) for line in lines):
        return matches
    return [m for m in matches if not (m.id == "jetson_needs_nvidia_wheel" and not m.specific)]


TORCH_NAMED = re.compile(r"torch|cuda", re.IGNORECASE)


def _container_smi_match(lines: list[str], report: Report) -> errors.Match | None:
    """nvidia-smi works somewhere in the text (its table shows the driver) but is missing in the container the
    user runs: that container was not given the GPU (the toolkit injects nvidia-smi and the driver libraries)."""
    if not report.facts.known("driver.version") or report.facts.value("cuda.available") is True:
        return None
    missing = next(((no, line) for no, line in enumerate(lines, start=1) if NO_SMI.search(line[:2000])), None)
    if missing is None or not any(CONTAINER_WORDS.search(line[:2000]) for line in lines):
        return None
    return errors.Match("docker_no_gpu_runtime", missing[0], missing[1].strip()[:500], True, 0.9)


# nvidia-smi's header (or -q, or the user's account of it) with no CUDA version: libcuda.so is not there.
SMI_NO_CUDA = re.compile(r"CUDA Version\W{0,3}(?:was |is |shows? |of )?N/?A\b", re.IGNORECASE)


def _container_without_compute_match(lines: list[str], report: Report) -> errors.Match | None:
    """nvidia-smi works in a container but shows "CUDA Version: N/A": the runtime mounted NVML (the utility
    capability) but not libcuda (compute), because the image does not ask for it (NVIDIA_DRIVER_CAPABILITIES without
    compute; the nvidia/cuda images set it). A base image or run option that requests compute is the fix."""
    if report.facts.value("cuda.available") is True:
        return None
    shown = next(((no, line) for no, line in enumerate(lines, start=1) if SMI_NO_CUDA.search(line[:2000])), None)
    if shown is None or not any(CONTAINER_WORDS.search(line[:2000]) for line in lines):
        return None
    return errors.Match("docker_no_gpu_runtime", shown[0], shown[1].strip()[:500], True, 0.9)


def _compose_match(lines: list[str], report: Report) -> errors.Match | None:
    """A Compose file or pod spec that requests the GPU, and the text says the GPU does not work in it: the request
    did not reach the container (indentation, an old Compose without device requests, no NVIDIA runtime)."""
    if report.facts.value("cuda.available") is True:
        return None
    request = next(((no, line) for no, line in enumerate(lines, start=1) if COMPOSE_GPU.search(line[:2000])), None)
    if request is None or not any(NOT_WORKING.search(line[:2000]) or UNAVAILABLE.search(line[:2000]) for line in lines):
        return None
    return errors.Match("docker_no_gpu_runtime", request[0], request[1].strip()[:500], False, 0.6)


# The program runs in a container: Compose's run output, a docker/podman command, "inside the container".
IN_CONTAINER = re.compile(
    r"\bdocker[- ]compose\b|\b(?:docker|podman|nerdctl)\s+(?:run|exec|compose)\b|"
    r"\bnvidia-docker\b|^Creating \S+_run\b|"
    r"\b(?:inside|in|within|from) (?:the |a |my |this )?(?:docker |podman )?container\b|"
    r"\b(?:on|in|with|to) (?:a |my |our |the )?(?:kubernetes|k8s)\b|\bkubectl\b|\bdevice[- ]plugin\b|"
    r"\bnvidia\.com/gpu\b|\b(?:inside|in|within|from) (?:the |a |my |our |this )?pods?\b",
    re.IGNORECASE,
)


def _in_container_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """ "Found no NVIDIA driver" from a program the text shows running in a container: the container not being given
    the GPU is the likeliest reading (the host's driver and GPU are hidden from it either way), so it goes first and
    "this machine has no NVIDIA GPU" is not offered; "no driver" stays a guess unless the text shows the driver."""
    if report.facts.value("cuda.available") is True or any(
        m.id == "docker_no_gpu_runtime" and m.specific for m in matches
    ):
        return matches
    guess = next((m for m in matches if m.id == "no_nvidia_driver" and not m.specific), None)
    if guess is None or any(m.id == "no_nvidia_gpu" and m.weight >= 0.8 for m in matches):
        return matches  # the user said the machine has no GPU, or lspci shows none
    if not any(IN_CONTAINER.search(line[:2000]) for line in lines):
        return matches
    dropped = {"no_nvidia_gpu"} | ({"no_nvidia_driver"} if report.facts.known("driver.version") else set())
    if report.facts.value("platform.wsl") is None:
        dropped.add("wsl_libcuda_problem")  # a missing libcuda in a container is the container's, not WSL's
    kept = [m for m in matches if not (m.id in dropped and not m.specific) and m.id != "docker_no_gpu_runtime"]
    return [*kept, errors.Match("docker_no_gpu_runtime", guess.line_no, guess.line, False, 0.9)]


# An app's log says it fell back to the CPU ("Using device_type cpu", "Using device: cpu").
CPU_FALLBACK = re.compile(r"\busing device(?:_type)?\s*[:=]?\s*[`'\"]?cpu\b", re.IGNORECASE)


def _windows_pip_match(lines: list[str], report: Report, matches: list[errors.Match]) -> errors.Match | None:
    """On Windows, CUDA unavailable (or an app falling back to the CPU) and nothing more specific: PyPI's Windows
    torch is the CPU build, the likeliest cause there. A guess: the build itself is not shown."""
    if (
        report.facts.value("host.os") != "Windows"
        or report.facts.value("cuda.available") is True
        or report.facts.known("torch.cuda_build")
        or any(m.specific or m.weight >= 0.8 for m in matches)
    ):
        return None
    said = next(((no, line) for no, line in enumerate(lines, start=1) if CPU_FALLBACK.search(line[:2000])), None)
    if said is None and _says_unavailable(lines):
        said = next(
            (
                (no, line)
                for no, line in enumerate(lines, start=1)
                if UNAVAILABLE.search(line[:2000]) or "is_available" in line[:2000]
            ),
            None,
        )
    if said is None or any(CPU_MACHINE.search(line[:2000]) for line in lines):
        return None
    return errors.Match("cpu_only_build", said[0], said[1].strip()[:500], False, 0.6)


# nvidia-smi's table: a GPU's memory cell ("12799MiB / 16280MiB"), the Processes section and its rows.
SMI_MEMORY = re.compile(r"\|\s*(\d+)\s*MiB\s*/\s*(\d+)\s*MiB\s*\|")
SMI_PROCESSES = re.compile(r"^\|\s*Processes:")
SMI_PROCESS_ROW = re.compile(r"^\|\s+\d+\s+(?:\S+\s+\S+\s+)?\d+\s+(?:C|G|C\+G|M|M\+C)\s+\S")


def _smi_memory_held_match(lines: list[str], matches: list[errors.Match]) -> errors.Match | None:
    """nvidia-smi shows most of a GPU's memory in use (2 GiB or more, at least half) and its Processes section lists
    nobody: processes this view cannot see hold it (another container or user, a leftover process). A guess when no
    out-of-memory error is shown; with one, the memory held elsewhere is why it ran out."""
    if not any(SMI_PROCESSES.match(line[:2000]) for line in lines) or any(
        SMI_PROCESS_ROW.match(line[:2000]) for line in lines
    ):
        return None
    held = next(
        (
            (no, line)
            for no, line in enumerate(lines, start=1)
            if (m := SMI_MEMORY.search(line[:2000]))
            and int(m.group(2)) > 0
            and int(m.group(1)) >= 2048
            and int(m.group(1)) >= 0.5 * int(m.group(2))
        ),
        None,
    )
    if held is None:
        return None
    oom = any(m.id == "cuda_out_of_memory" for m in matches)
    return errors.Match("gpu_memory_held_by_others", held[0], held[1].strip()[:500], oom, 0.8)


# A line that is a Python interpreter's path ("'C:\\...\\envs\\py36\\python.exe'", "/usr/bin/python3"), alone or after
# sys.executable / `which python`.
INTERPRETER_LINE = re.compile(
    r"^\s*(?:[>$%#]\s*)?(?:(?:print\()?sys\.executable\)?\W*|which python3?\W*)?[`'\"]?"
    r"((?:[A-Za-z]:)?(?:[\\/]+[^\\/\s'\"`]+)+[\\/]+python(?:\d(?:\.\d+)?)?(?:\.exe)?)[`'\"]?\s*$",
    re.IGNORECASE,
)
MODULE_MISSING = re.compile(r"No module named|ModuleNotFoundError|is_available", re.IGNORECASE)


def _two_interpreters_match(lines: list[str]) -> errors.Match | None:
    """The text shows two different Python interpreters (sys.executable in a shell and in a notebook, two `which
    python` answers) and a module missing or CUDA differing: the program runs in the other interpreter."""
    seen: dict[str, tuple[int, str]] = {}
    for no, line in enumerate(lines, start=1):
        m = INTERPRETER_LINE.match(line[:2000])
        if m:
            seen.setdefault(re.sub(r"[\\/]+", "/", m.group(1)).lower(), (no, line))
    if len(seen) < 2 or not any(MODULE_MISSING.search(line[:2000]) for line in lines):
        return None
    no, line = list(seen.values())[1]
    return errors.Match("wrong_interpreter_or_kernel", no, line.strip()[:500], True, 0.8)


def _display_devices_match(lines: list[str]) -> errors.Match | None:
    """lspci lists display adapters and none is NVIDIA: no NVIDIA GPU here. Certain for a VM's virtual adapter;
    a guess otherwise (a `grep VGA` can hide a laptop's NVIDIA "3D controller")."""
    shown = [(no, line) for no, line in enumerate(lines, start=1) if LSPCI_DISPLAY.match(line[:2000])]
    if not shown or any("nvidia" in line.lower() for _, line in shown):
        return None
    no, line = shown[0]
    virtual = all(VIRTUAL_DISPLAY.search(line) for _, line in shown)
    return errors.Match("no_nvidia_gpu", no, line.strip()[:500], False, 0.9 if virtual else 0.5)


# A hardware list the user typed or copied (GNOME's About page, neofetch, dxdiag, an issue template) stating the
# machine's graphics: "Graphics  Mesa Intel® Xe Graphics (TGL GT2)", "GPU: AMD Radeon Vega 8", "Card name: Intel UHD".
STATED_GRAPHICS = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?(?:graphics(?: card| adapter)?|gpus?|video(?: card| adapter| controller)?|"
    r"display(?: adapter)?s?|card name)\b\s*[:=]?\s+(?!devices?\s*$)(?P<value>\S.*)$",  # not dxdiag's "Display Devices"
    re.IGNORECASE,
)
NON_NVIDIA_GRAPHICS = re.compile(
    r"\b(?:intel|amd|radeon|mesa|llvmpipe|iris|uhd graphics|hd graphics|apple m\d|adreno|mali|matrox|aspeed)\b",
    re.IGNORECASE,
)
# An NVIDIA GPU named anywhere (a model, lspci's vendor string): then a non-NVIDIA adapter is not the only one.
NVIDIA_GPU_NAMED = re.compile(
    r"\b(?:geforce|quadro|tesla|titan|rtx|gtx|jetson|tegra)\b|\bnvidia (?:corporation|[ahlptvk]\d{1,3}|a\d{4})\b|"
    r"\b10de:|\brocm\b|\bhip\b|" + NOUVEAU_PROBE,
    re.IGNORECASE,
)


def _stated_graphics_match(lines: list[str], report: Report) -> errors.Match | None:
    """The user's own hardware list states the machine's graphics, it names only an Intel / AMD / Apple adapter, and
    nothing in the text names an NVIDIA GPU (no model, no nvidia-smi, no driver version): there is no NVIDIA GPU to
    use, which explains every CUDA or container GPU error after it."""
    if (
        report.facts.known("driver.version")
        or report.facts.known("reported.gpus")
        or report.facts.value("host.os") == "Darwin"  # a Mac's answer is MPS, its own finding
    ):
        return None
    stated = [
        (no, line)
        for no, line in enumerate(lines, start=1)
        if (m := STATED_GRAPHICS.match(line[:2000])) and len(m.group("value")) <= 200
    ]
    if not stated or not all(NON_NVIDIA_GRAPHICS.search(line) and "nvidia" not in line.lower() for _, line in stated):
        return None
    if any(NVIDIA_GPU_NAMED.search(line[:2000]) for line in lines):
        return None
    no, line = stated[0]
    return errors.Match("no_nvidia_gpu", no, line.strip()[:500], True, 0.8)


# What a machine without an NVIDIA GPU shows when asked for one: the container runtime finds no GPU to select, CUDA
# finds no driver, libcuda is missing. None of these is a separate cause there.
# A CPU build of torch is right for such a machine: a CUDA build would not help. The CUDA runtime reports a missing
# driver library as cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA runtime version"), so
# that message is no old driver there either.
NO_GPU_CONSEQUENCES = (
    "docker_no_gpu_runtime",
    "driver_too_old",
    "no_nvidia_driver",
    "nvidia_module_not_loaded",
    "wsl_libcuda_problem",
    "cpu_only_build",
)


def _no_gpu_explains(matches: list[errors.Match]) -> list[errors.Match]:
    """The text establishes that the machine has no NVIDIA GPU (a specific statement, not a guess): the GPU-access
    errors after it are its consequences, and their fixes (install the container toolkit, a driver) would not help."""
    if not any(m.id == "no_nvidia_gpu" and m.specific for m in matches):
        return matches
    return [m for m in matches if m.id not in NO_GPU_CONSEQUENCES]


def _cpu_build_wanted(lines: list[str], matches: list[errors.Match]) -> list[errors.Match]:
    """A CPU build read only as a guess (an install request for it: cpuonly, the /whl/cpu index) is no cause where
    the text says the machine has no GPU: the CPU build is then what the user meant to install."""
    if not any(m.id == "cpu_only_build" and not m.specific for m in matches):
        return matches
    # torch.load's own hint ("If you are running on a CPU-only machine, please use torch.load with map_location")
    # is not the user saying so.
    said = (line[:2000] for line in lines if "map_location" not in line)
    if not any(CPU_MACHINE.search(line) for line in said):
        return matches
    return [m for m in matches if not (m.id == "cpu_only_build" and not m.specific)]


def _cpu_machine_match(lines: list[str], matches: list[errors.Match]) -> errors.Match | None:
    """ "Found no NVIDIA driver" and the user says they are on the CPU / have no GPU: no GPU is the likeliest cause."""
    if not any(m.id == "no_nvidia_driver" and not m.specific for m in matches):
        return None
    said = next(((no, line) for no, line in enumerate(lines, start=1) if CPU_MACHINE.search(line[:2000])), None)
    if said is None:
        return None
    return errors.Match("no_nvidia_gpu", said[0], said[1].strip()[:500], False, 0.8)


# A torch install attempt, crash or complaint on a Jetson (not a MediaPipe or TensorRT question).
INSTALL_COMMAND = re.compile(r"\b(?:pip3?|conda|mamba)\s+install\b", re.IGNORECASE)
# "Illegal instruction (core dumped)" is not one: on a Jetson it is NumPy's OpenBLAS picking a CPU core type the
# board lacks (fixed by OPENBLAS_CORETYPE=ARMV8), whatever torch is installed; a wrong torch wheel fails to import
# or finds no CUDA instead.
TORCH_TROUBLE = re.compile(r"not available|unavailable", re.IGNORECASE)


def _jetson_torch_line(line: str) -> bool:
    """The line installs torch, or says torch is unavailable (checked as separate conditions so a long line is
    scanned a fixed number of times)."""
    return "torch" in line.lower() and (
        INSTALL_COMMAND.search(line) is not None or TORCH_TROUBLE.search(line) is not None
    )


def _jetson_match(lines: list[str], report: Report, matches: list[errors.Match]) -> errors.Match | None:
    """On a Jetson, a torch without working CUDA is almost always a wheel that is not NVIDIA's JetPack build
    (PyPI's aarch64 wheels have no Tegra GPU support): the JetPack-matched wheel or container is the fix."""
    if not report.facts.value("platform.jetson") or report.facts.value("cuda.available") is True:
        return None
    # English and other languages' "the GPU is not detected" (user_words) count as the complaint too.
    gpu_unused = system_causes.says_gpu_unused(lines) or _says_unavailable(lines)
    if not any(re.search(r"torch", line[:2000], re.IGNORECASE) for line in lines) and (
        not gpu_unused or system_causes.names_another_gpu_stack(lines) or jetson_texts.driver_lists_gpu(lines)
    ):
        # A Jetson question about something else (another library, no complaint about the GPU, or a tool that does
        # not see the GPU the driver lists).
        return None
    if report.facts.value("cuda.available") is not False and gpu_stacks.local_torch_build(
        report.facts.value("torch.version")
    ):
        return None  # a torch built on the board or NVIDIA's own: a crash there is not the PyPI wheel's
    says_unavailable = report.facts.value("cuda.available") is False or _says_unavailable(lines) or gpu_unused
    if (
        not says_unavailable
        and not any(m.id in ("cpu_only_build", "no_nvidia_driver", "no_nvidia_gpu") for m in matches)
        and not any(f.id == "cpu_only_build" for f in report.findings)
        and not any(_jetson_torch_line(line[:2000]) for line in lines)
        and not system_causes.cuda_failed_at_first_use(lines, matches)
    ):
        return None
    no = next((i for i, line in enumerate(lines, start=1) if paste_facts.JETSON_RELEASE.search(line)), 1)
    # A verdict only when the text shows a non-JetPack wheel; otherwise (a container build, a wheel of unknown
    # origin) it is the likeliest of the possible causes.
    generic = (
        any(m.id == "cpu_only_build" for m in matches)
        or any(f.id == "cpu_only_build" for f in report.findings)
        or any(GENERIC_WHEEL.search(line[:2000]) for line in lines)
    )
    return errors.Match("jetson_needs_nvidia_wheel", no, lines[no - 1].strip()[:500], generic, 0.6)
