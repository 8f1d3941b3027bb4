"""The handout in a real browser: on the attention calculator with a link's settings, the sidebar's "Take this page
home (PDF)" box makes the PDF on click; the file downloaded has the page's numbers, and its QR code opens the
very link the browser shows (st.context.url with the page's query), not the bare page."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.e2e.helpers import open_page, wait_for_app
from tests.engine.charts.test_handout import page_count, pdf_text, qr_links


def test_the_handout_downloads_with_the_views_numbers_and_its_exact_link(app_url, browser_page):
    page = browser_page
    open_page(page, app_url, "attention?causal=1&query=2")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text("Take this page home (PDF)").click()
    wait_for_app(page, after_input=True)
    sidebar.get_by_role("button", name="Make the handout").click()
    download_button = sidebar.get_by_role("button", name="Download the handout (A4, PDF)")
    download_button.wait_for(timeout=120_000)   # every chart drawn on a loaded 2-core machine: generous
    with page.expect_download(timeout=60_000) as download:
        download_button.click()
    pdf = open(download.value.path(), "rb").read()
    assert pdf.startswith(b"%PDF") and download.value.suggested_filename == "attention-calculator-handout-a4.pdf"
    assert page_count(pdf) <= 2
    assert "Attention calculator" in pdf_text(pdf) and "Masked keys (causal mask) get weight 0." in pdf_text(pdf)
    link, = qr_links(pdf)
    parts = urlsplit(link)
    assert link.startswith(app_url) and parts.path == "/attention"
    query = parse_qs(parts.query)
    assert query["causal"] == ["1"] and query["query"] == ["2"]
