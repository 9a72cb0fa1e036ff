"""Every Python environment on the machine, what torch each one has, and which one the user's code runs.

Qt-free (the GUI shows :func:`gpuassist.envs.inspect.inventory` beside its target selector). Two phases, kept
apart on purpose: :mod:`gpuassist.envs.discovery` only reads the file system (it never starts a process, so a
broken interpreter or a pyenv shim cannot hang it; :mod:`gpuassist.envs.trust` says which ones may ever run),
and :mod:`gpuassist.envs.inspect` runs the probe's first two stages in each interpreter, in parallel, with short
time limits. :mod:`gpuassist.envs.target` chooses the default target from discovery alone.

This package module imports nothing: the window imports discovery and the target choice at start-up, and
the inspection (with the probe runner) only when the environment table is first shown.
"""
