"""The probe: facts gathered inside the target interpreter, in a subprocess (docs/architecture.md §2).

``probe_script.py`` is the stdlib-only program that runs under the user's interpreter; ``runner.py`` is
the host side that starts it, enforces its time limits and turns its event stream into facts;
``events.py`` types that stream. Import each from its module: the app's pages read the events' types at
start-up without loading the runner.
"""
