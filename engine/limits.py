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
MAX_BUILD_PARAMETERS = 200_000_000  # a model built in memory (GPT-2 small fits; GPT-3 is only counted)
MAX_CONTEXT_LENGTH = 2048           # tokens a built model reads at once
MAX_TRAIN_PARAMETERS = 3_000_000    # a model trained live on a shared CPU
MAX_TRAIN_D_MODEL = 256             # width of a live-trained model
MAX_TRAIN_LAYERS = 8                # blocks in a live-trained model
MAX_TRAIN_CONTEXT = 128             # context length of a live-trained model
MAX_TRAIN_BATCH = 64                # sequences per training step
MAX_TRAIN_STEPS = 20_000            # optimiser steps of one run
MAX_TRAIN_SECONDS = 300             # wall-clock budget of one live run
MAX_CONCURRENT_TRAININGS = 2        # trainings running at once in one server process (the rest queue)
MAX_WAITING_TRAININGS = 8           # trainings waiting in line; beyond that a student is asked to retry
MAX_SAVED_RUNS = 6                  # runs a student keeps to compare on one chart
MAX_GENERATE_TOKENS = 400           # tokens sampled in one go
MAX_PROMPT_CHARS = 300              # characters of a prompt
MAX_CHECKPOINT_BYTES = 64_000_000   # a checkpoint file read from disk

# --- the pretrained model and its heads (issue 6) ---------------------------------------

# --- beyond words: patches, frames, residues (issue 7) ----------------------------------

# --- classroom: sessions and load (issue 8) ---------------------------------------------
