"""The papermill templates in nbs/study/, executed as the sweep and the report execute them, on a tiny run: the
experiment notebook trains one DP run and writes its metrics.json; the report notebook renders that run."""
import json, os
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
needs_assets = pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS (the tokenizer, SST-2, dptie-mini)")

@needs_assets
def test_experiment_then_report_templates(tmp_path):
    import papermill as pm
    run = tmp_path/"runs"/"tiny"
    pm.execute_notebook(str(ROOT/"nbs/study/experiment.ipynb"), str(tmp_path/"experiment.ipynb"), kernel_name="python3",
                        cwd=str(ROOT), progress_bar=False,
                        parameters=dict(epsilon=3.0, train_cap=32, dev_cap=16, max_len=32, batch_size=8, micro_batch_size=8,
                                        num_threads=1, out=str(run)))
    m = json.loads((run/"metrics.json").read_text())
    assert m["status"] == "ok" and m["privacy"]["epsilon_prv"] <= 3.0 + 1e-9, m.get("error")
    assert m["config"]["train_cap"] == 32 and (run/"run.png").exists()
    pm.execute_notebook(str(ROOT/"nbs/study/report.ipynb"), str(tmp_path/"report.ipynb"), kernel_name="python3",
                        cwd=str(ROOT), progress_bar=False,
                        parameters=dict(runs_dir=str(tmp_path/"runs"), bench=str(tmp_path/"none.json"), out=str(tmp_path)))
    assert list((tmp_path/"figures").glob("*.png")), "the report template drew no figure"
