"""The papermill templates in nbs/study/, executed as the sweep and the report execute them, on a tiny run: the
experiment notebook trains one DP run and writes its metrics.json; the report notebook renders that run."""
import json, os
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
needs_assets = pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS (the tokenizer, SST-2, dptie-mini)")
TINY = dict(epsilon=3.0, train_cap=32, dev_cap=16, max_len=32, batch_size=8, micro_batch_size=8, epochs=1.0, num_threads=1)

@needs_assets
def test_experiment_then_report_templates(tmp_path):
    import papermill as pm
    from dptie_nb.study.templates import run_template
    run = tmp_path/"runs"/"tiny"
    res = run_template(ROOT/"nbs/study/experiment.ipynb", tmp_path/"experiment.ipynb", dict(TINY, out=str(run)))  # `dptie run`
    assert res["run"] == run
    m = json.loads((run/"metrics.json").read_text())
    assert m["status"] == "ok" and m["privacy"]["epsilon_prv"] <= 3.0 + 1e-9, m.get("error")
    assert m["config"]["train_cap"] == 32 and m["config"]["model"] == "dptie-mini-reviews" and (run/"run.png").exists()
    # Run All again into the same folder: refused, in the notebook's own words
    with pytest.raises(pm.PapermillExecutionError) as e:
        pm.execute_notebook(str(ROOT/"nbs/study/experiment.ipynb"), str(tmp_path/"again.ipynb"), kernel_name="python3",
                            cwd=str(ROOT), progress_bar=False, parameters=dict(TINY, out=str(run)))
    assert "set `out` to another folder, or `overwrite = True`, in the parameters cell" in e.value.evalue, e.value.evalue
    pm.execute_notebook(str(ROOT/"nbs/study/report.ipynb"), str(tmp_path/"report.ipynb"), kernel_name="python3",
                        cwd=str(ROOT), progress_bar=False,
                        parameters=dict(runs_dir=str(tmp_path/"runs"), bench=str(tmp_path/"none.json"), out=str(tmp_path)))
    assert list((tmp_path/"figures").glob("*.png")), "the report template drew no figure"
