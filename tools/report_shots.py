"""Pictures of a rendered report at a reader's window widths, on a machine with no browser (issue 23).

WeasyPrint lays the page out (HTML and CSS, no JavaScript: the report has none) on pages as wide as the window, and
pdfium draws them as PNG. This approximates a browser's layout; it is not a browser. Neither is a dependency of
dptie: install them beside it, e.g. in their own environment:

    python -m venv /tmp/shots && /tmp/shots/bin/pip install weasyprint pypdfium2
    /tmp/shots/bin/python tools/report_shots.py reports/study/report.html --widths 900 1280 --pages 2 --out scratch/shots

Each width gives OUT/<stem>-<width>px-p<k>.png for its first PAGES pages (1,400 px tall each)."""
import argparse
from pathlib import Path


def shots(html:Path, width:int, out:Path, pages:int, height:int=1400) -> list[Path]:
    "The first `pages` pages of `html` laid out `width` px wide, as PNG files in `out`."
    import weasyprint, pypdfium2 as pdfium  # optional tools, not dptie's dependencies (see the docstring)
    out.mkdir(parents=True, exist_ok=True)
    pdf = out/f"{html.stem}-{width}px.pdf"
    page_css = weasyprint.CSS(string=f"@page {{ size: {width}px {height}px; margin: 0 }}")
    weasyprint.HTML(filename=str(html), base_url=str(html.parent)).write_pdf(pdf, stylesheets=[page_css])
    doc, files = pdfium.PdfDocument(str(pdf)), []
    for i in range(min(pages, len(doc))):
        files.append(out/f"{html.stem}-{width}px-p{i + 1}.png")
        doc[i].render(scale=1).to_pil().save(files[-1])
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("html", type=Path, help="a rendered report.html")
    ap.add_argument("--widths", type=int, nargs="+", default=[900, 1280], help="window widths in px")
    ap.add_argument("--pages", type=int, default=2, help="pages (1,400 px each) drawn per width")
    ap.add_argument("--out", type=Path, default=Path("scratch/shots"), help="where the PNG files go")
    a = ap.parse_args(argv)
    if not a.html.is_file(): raise SystemExit(f"no report at {a.html}: render one with `dptie report --preset PRESET`")
    for w in a.widths:
        for f in shots(a.html, w, a.out, a.pages): print(f)


if __name__ == "__main__":
    main()
