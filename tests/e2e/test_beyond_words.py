"""Beyond words in real Chromium: click a patch and watch the overlay move; audio twin; protein; a bad upload."""
from __future__ import annotations

from tests.e2e.helpers import SCREENSHOTS, charts_drawn, error_texts, main_text, open_page, screenshot, wait_for_app


def _overlay(page):
    return page.locator("[data-testid='stVegaLiteChart']").first


def test_click_a_patch_moves_the_overlay(app_url, browser_page):
    open_page(browser_page, app_url, "beyond")
    text = main_text(browser_page)
    assert "a grid of 14 x 14 = 196 tokens" in text and "Patch (4, 6) keeps" in text
    chart = _overlay(browser_page)
    chart.locator("path[aria-label*='patch: 143;']").first.wait_for(timeout=30_000)   # vega has drawn
    chart.scroll_into_view_if_needed()
    before = chart.screenshot(path=str(SCREENSHOTS / "beyond-overlay-before.png"))
    screenshot(browser_page, "beyond-image-default")
    # each patch is an SVG rect whose aria-label names it: click patch 143 = row 10, column 3
    chart.locator("path[aria-label*='patch: 143;']").first.click()
    wait_for_app(browser_page, after_input=True)
    assert "Patch (10, 3) keeps" in main_text(browser_page)
    browser_page.mouse.move(0, 0)                            # no tooltip over the picture
    browser_page.wait_for_timeout(300)
    after = _overlay(browser_page).screenshot(path=str(SCREENSHOTS / "beyond-overlay-after.png"))
    assert after != before                                   # the spotlight moved with the query
    assert not error_texts(browser_page)
    screenshot(browser_page, "beyond-image-clicked")


def test_heat_overlay_on_coffee(app_url, browser_page):
    open_page(browser_page, app_url, "beyond?picture=coffee&overlay=heat&patch=32&qrow=3&qcol=2")
    assert "a grid of 7 x 7 = 49 tokens" in main_text(browser_page)
    assert not error_texts(browser_page)
    charts_drawn(browser_page)  # wait until Vega has drawn them
    screenshot(browser_page, "beyond-image-heat")


def test_audio_repeated_note_attends_to_its_twin(app_url, browser_page):
    open_page(browser_page, app_url, "beyond?kind=audio")
    text = main_text(browser_page)
    assert "T = 97 tokens" in text and "in C again" in text
    assert not error_texts(browser_page)
    charts_drawn(browser_page)  # wait until Vega has drawn them
    screenshot(browser_page, "beyond-audio")
    # each frame is a transparent column over the spectrogram: click frame 11, inside the first C
    _overlay(browser_page).locator("path[aria-label*='frame: 11;']").first.click()
    wait_for_app(browser_page, after_input=True)
    assert "Frame 11 (t = 0.208 s, in C)" in main_text(browser_page)
    assert "Done." in main_text(browser_page)          # the repeated C outweighs D and E together
    charts_drawn(browser_page)  # wait until Vega has drawn them
    browser_page.mouse.move(0, 0)
    screenshot(browser_page, "beyond-audio-first-c")


def test_protein_heatmap(app_url, browser_page):
    open_page(browser_page, app_url, "beyond?kind=protein&residue=5")
    assert "L = 21 residues" in main_text(browser_page)
    charts_drawn(browser_page)  # wait until Vega has drawn them
    screenshot(browser_page, "beyond-protein")


def test_text_file_uploaded_as_a_picture_is_a_sentence(app_url, browser_page, tmp_path):
    open_page(browser_page, app_url, "beyond?picture=upload%20your%20own")
    fake = tmp_path / "holiday.png"
    fake.write_bytes(b"this is a shopping list, not a picture")
    browser_page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(fake))
    wait_for_app(browser_page, after_input=True)
    browser_page.wait_for_selector("[data-testid='stAlertContentError']", timeout=30_000)
    assert any("not a PNG or JPEG" in e for e in error_texts(browser_page))
    assert "Further reading" in main_text(browser_page)
    screenshot(browser_page, "beyond-bad-upload")
