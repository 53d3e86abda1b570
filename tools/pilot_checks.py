"""A pilot's five checks (issue 47 item 1), judged from its committed runs, as markdown: reports/<preset>/checks.md.

    python tools/pilot_checks.py [pilot-v4]
"""
import sys
from pathlib import Path
from dptie_nb.study.report.selection import pilot_checks, pilot_checks_md
from dptie_nb.study.sweep import expand, run_status

def main(argv=None):
    name = (argv if argv is not None else sys.argv[1:] or ["pilot-v4"])[0]
    out = Path("reports")/name/"checks.md"
    cfgs = expand(name); done = [c.run_id() for c in cfgs if run_status(out.parent/"runs"/c.run_id(), c) == "ok"]
    text = (f"# {name}: the pilot's checks\n\nJudged from the runs in `reports/{name}/runs` by `dptie_nb.study.report.selection.pilot_checks` "
            f"(`python tools/pilot_checks.py {name}`): {len(done)} of the preset's {len(cfgs)} runs have finished, so a recipe with no "
            f"finished run has no row yet and a check whose runs have not finished says so.\n\n{pilot_checks_md(pilot_checks(name))}\n")
    out.write_text(text); print(text); print(f"wrote {out}")

if __name__ == "__main__": main()
