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

# --- text: corpus, tokenizers, n-grams (issue 3) ----------------------------------------

# --- embeddings (issue 4) ---------------------------------------------------------------

# --- the transformer: model, training, generation (issue 5) -----------------------------
# positional encodings, the tiny vocabulary, the multi-head and position pages
MAX_SENTENCE_WORDS = 12        # words in a sentence typed on the multi-head / position pages
MAX_POSITIONS = 256            # rows T of a positional-encoding table drawn or compared
MAX_ENCODING_DIM = 256         # width d of a positional-encoding table
MIN_SINUSOID_BASE = 2.0        # the 10000 in sin(t / 10000^(2i/d)), lowest allowed
MAX_SINUSOID_BASE = 1e6        # ... and highest allowed
MAX_ENCODING_STRENGTH = 10.0   # multiplier on p_t before adding it to x_t
MAX_COST_TOKENS = 1_000_000    # T in the parameter / FLOP counts (nothing is built)
MAX_COST_WIDTH = 100_000       # d in the parameter / FLOP counts
MAX_COST_HEADS = 1024          # h in the parameter / FLOP counts
MAX_PROJECTION_GAIN = 10.0     # gain of the seeded untrained W_Q, W_K, W_V, W_O

# --- the pretrained model and its heads (issue 6) ---------------------------------------

# --- beyond words: patches, frames, residues (issue 7) ----------------------------------

# --- classroom: sessions and load (issue 8) ---------------------------------------------
