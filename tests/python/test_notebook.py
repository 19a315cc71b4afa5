"""examples/python/gluon_layouts.ipynb runs headless (nbclient) and draws
its picture."""

import os

import nbformat
from nbclient import NotebookClient

from conftest import ROOT


def test_the_notebook_runs_and_draws():
    path = os.path.join(ROOT, "examples", "python", "gluon_layouts.ipynb")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<svg" in h for h in html), "the last cell draws the layout"
    texts = " ".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "SwizzledSharedLayout(vec=" in texts and "'optimal'" in texts
