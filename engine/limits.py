"""Every input limit in the app, one named constant each.

Pages may also use these to bound their widgets, but the engine enforces them: a value
beyond a limit raises ValueError with a sentence, whatever the widget allowed.
"""

# --- attention by hand (engine.attention) ---------------------------------------------
MAX_TOKENS = 64            # rows of X (tokens in a hand-made sentence)
MAX_DIM = 64               # columns of X, width of W_q / W_k / W_v
MAX_ABS_VALUE = 1e6        # any one number typed into a matrix
MAX_WINDOW = 16            # k of the window average c_t = mean(x_{t-k} .. x_{t+k})
MAX_HEADS = 16             # h in the multi-head arithmetic
MAX_TOKEN_NAME_CHARS = 24  # a token label typed by a student
MAX_MATRIX_TEXT_CHARS = 20_000  # the text of one typed matrix
MAX_SENTENCE_CHARS = 400   # a sentence typed on the context page

# --- text: corpus, tokenizers, n-grams (issue 3) ----------------------------------------

# --- embeddings (issue 4) ---------------------------------------------------------------

# --- the transformer: model, training, generation (issue 5) -----------------------------

# --- the pretrained model and its heads (issue 6) ---------------------------------------

# --- beyond words: patches, frames, residues (issue 7) ----------------------------------
MAX_IMAGE_UPLOAD_BYTES = 8_000_000   # an uploaded PNG or JPEG file
MAX_IMAGE_PIXELS = 40_000_000        # width x height read from the header, checked before decoding (bombs)
MAX_IMAGE_SIDE = 1024                # longer side kept after loading; larger pictures are shrunk to it
MIN_PATCH_SIZE = 2                   # side of one square patch, in pixels
MAX_PATCH_SIZE = 128
MAX_PATCH_TOKENS = 1024              # patches (tokens) in one image: 1024^2 = 1 M scores
MAX_TOKEN_FEATURES = 49_152          # numbers per raw token (a 128 x 128 RGB patch)
MAX_PROJECTION_DIM = 256             # d of the fixed random projection
MAX_WAV_BYTES = 5_000_000            # an uploaded WAV file
MAX_AUDIO_SECONDS = 30.0             # duration of a signal or WAV
MIN_SAMPLE_RATE = 4_000              # samples per second
MAX_SAMPLE_RATE = 48_000
MIN_FRAME = 64                       # samples in one spectrogram frame (FFT length)
MAX_FRAME = 4_096
MIN_HOP = 16                         # samples between the starts of two frames
MAX_AUDIO_FRAMES = 1024              # frames (tokens) in one spectrogram
SILENCE_PEAK = 1e-4                  # peak |sample| (full scale 1) below which a recording counts as silent
MAX_RESIDUES = 256                   # amino acids in one protein sequence
MAX_SEQUENCE_TEXT_CHARS = 5_000      # the pasted text, FASTA header included

# --- classroom: sessions and load (issue 8) ---------------------------------------------
