# Sourced by ./run-app and ./run-tests: create .venv and install gpuassist into it (once per change of
# pyproject.toml or the constraints), so a fresh clone needs nothing installed by hand.
# usage: ensure_venv "EXTRAS"   (e.g. "" or "test,dev")
ensure_venv() {
    local extras="$1" here venv stamp want py
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$here/.venv"
    py="${PYTHON:-python3}"
    if ! command -v "$py" >/dev/null 2>&1; then
        echo "gpuassist: needs Python 3.10 or newer as '$py' (set PYTHON=/path/to/python3)" >&2
        return 2
    fi
    if [ ! -x "$venv/bin/python" ]; then
        "$py" -m venv "$venv" || { echo "gpuassist: could not create $venv (install python3-venv)" >&2; return 2; }
    fi
    want="$(cat "$here/pyproject.toml" "$here/constraints/cpu.txt" | sha256sum | cut -c1-16)-[$extras]"
    stamp="$venv/.gpuassist-installed"
    if [ ! -f "$stamp" ] || ! grep -qxF -- "$want" "$stamp"; then
        echo "gpuassist: installing into $venv (first run only) ..." >&2
        local spec="$here"
        [ -n "$extras" ] && spec="$here[$extras]"
        # gpuassist itself needs no torch; the tests do (the `test` extra): the CPU torch pin goes in
        # first, so nothing can pull a multi-GB CUDA build.
        local check="import gpuassist, rich, jinja2"
        case ",$extras," in
            *,test,*)
                "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
                    -c "$here/constraints/cpu.txt" "torch==2.13.0" 2>&1 | grep -v "is ignored" >&2 || true
                check="$check, torch" ;;
        esac
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            -c "$here/constraints/cpu.txt" -e "$spec" 2>&1 | grep -v "is ignored" >&2 || true
        if ! "$venv/bin/python" -c "$check" 2>/dev/null; then
            echo "gpuassist: installation into $venv failed (see pip's messages above)" >&2
            return 2
        fi
        echo "$want" >>"$stamp"
    fi
    VENV_PY="$venv/bin/python"
    VENV_BIN="$venv/bin"
}
