"""Beyond words: any sequence of vectors can be attended over.

- modalities: images as patches, audio as spectrogram frames, proteins as residues, as token vectors.
- code: "show the code" for the Beyond words page.
"""
