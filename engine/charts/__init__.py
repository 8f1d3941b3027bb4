"""Chart builders, by kind of chart: data in, a plain Vega-Lite spec (a dict) out, or a picture's data URL
or a diagram's text. Pages draw them (ui.charts.show); nothing here touches Streamlit or loads Altair.

- palette: every colour, once (the blue / orange pair, Okabe & Ito, greys, head types, viridis).
- style: the one text style (styled, with_text, 13 px; 24 on a projector), the layouts a chart is drawn in
  (Layout: a phone's column, a desktop's, a projector's), padding, value axes that fit
  their data, distinct and visible labels, charts side by side.
- heatmaps: matrices as cells (attention weights and scores, heads, the bigram table, encodings).
- bars: values per category (weights compared, next-token probabilities, scores, costs, the ladder).
- lines: values against an ordered quantity (loss curves, n, merges, offsets, layers), token-to-token lines.
- images: pixels as data URLs, pictures with their patches, spectrograms, head thumbnails.
- points: words as points (the embedding map, a homonym's senses), heads by where they look against what they do.
- diagrams: the block diagram, laid out here, as SVG text.
- fitting: a chart fitted to its place (stacked, shrunk, turned on a phone; grown on a projector).

Import from the module of the kind: `from engine.charts.heatmaps import heatmap_spec`.
"""
