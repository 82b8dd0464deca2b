// Written by ui/attention_view/bundle.py (shared_js) from viz/colors.py, ui/view.py, ui/state.py and ui/layout.py:
// edit those and run `python -m ui.attention_view.bundle`; tests/test_attention_view_js.py checks it.
export const BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"];
export const DIVERGING = [[0.0, "#2166ac"], [0.1, "#4393c3"], [0.2, "#92c5de"], [0.35, "#d1e5f0"], [0.5, "#f7f7f7"], [0.65, "#fddbc7"], [0.8, "#f4a582"], [0.9, "#d6604d"], [1.0, "#b2182b"]];
export const MASKED = [180, 180, 180];
export const MASKED_HATCH = "#8c8c8c";
export const HIGHLIGHT = "#e6550d";
export const T_MIN = 0.05;
export const T_MAX = 20.0;
export const LINK_TEXT_MAX = 500; // the longest sentence a link carries
export const PHONE_MAX_PX = 480; // a phone's widest screen (ui/layout.py)
