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
MAX_USER_TEXT_BYTES = 2_000_000   # a pasted or uploaded text (UTF-8 bytes)
MAX_TOKENIZE_CHARS = 5_000        # text typed on the Tokens page, shown as chips
MAX_BPE_MERGES = 2_000            # merges the BPE trainer may learn live
MAX_BPE_TRAIN_CHARS = 2_000_000   # text the BPE trainer may read
MAX_NGRAM_ORDER = 6               # n of an n-gram model
MAX_NGRAM_TOKENS = 6_000_000      # token ids an n-gram model may count
MAX_SAMPLE_TOKENS = 2_000         # tokens sampled in one go
MAX_TEMPERATURE = 100.0           # sampling temperature (0 means greedy)
MAX_ADD_K = 100.0                 # k of add-k (Lidstone) smoothing
MAX_TOP_K_VIEW = 50               # rows of a "top next tokens" view

# --- embeddings (issue 4) ---------------------------------------------------------------

# --- the transformer: model, training, generation (issue 5) -----------------------------

# --- the pretrained model and its heads (issue 6) ---------------------------------------
PRETRAINED_MAX_TOKENS = 256          # tokens in one pass of SmolLM2 (longer texts are cut, with a note)
PRETRAINED_MAX_TEXT_CHARS = 4_000    # characters of a text typed for SmolLM2
PRETRAINED_MAX_EVAL_CHARS = 20_000   # characters scored for bits per character (read in windows)
PRETRAINED_MAX_NEW_TOKENS = 64       # tokens SmolLM2 writes in one generate call
PRETRAINED_MAX_TEMPERATURE = 5.0     # sampling temperature for SmolLM2
PRETRAINED_MAX_TOP_K = 50            # candidates shown in a next-token distribution
HEAD_VIEWER_MAX_TOKENS = 40          # tokens drawn in the head viewer (30 x 9 heatmaps of T x T)
INDUCTION_MAX_LENGTH = 100           # random tokens repeated twice to find induction heads

# --- beyond words: patches, frames, residues (issue 7) ----------------------------------

# --- classroom: sessions and load (issue 8) ---------------------------------------------
