"""One cached loader per heavy object, shared read-only by every session of the process."""
from __future__ import annotations

import streamlit as st
