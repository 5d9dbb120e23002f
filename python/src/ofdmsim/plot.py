"""BER (or GMI) curves of a results DataFrame with matplotlib."""

# The intervals the CSV carries for a y column.
_INTERVALS = {"ber": ("ci95_low", "ci95_high"), "gmi": ("gmi_ci95_low", "gmi_ci95_high")}
_LAST_FIXED = "frame_gmi_loss_s_sq"  # the fixed columns end here; config keys follow (results/csv_columns.c)


def config_columns(df):
    """The columns of config keys (after the CSV's fixed columns)."""
    cols = list(df.columns)
    return cols[cols.index(_LAST_FIXED) + 1:] if _LAST_FIXED in cols else []


def differing(df, exclude=()):
    """The config keys whose value differs between rows: what tells the curves apart."""
    return [c for c in config_columns(df)
            if c not in exclude and df[c].astype(str).nunique() > 1]


def plot(df, x="snr_db", y="ber", by=None, ax=None, theory=True, ci=True, logy=None, title=None):
    """One curve per combination of the `by` columns (default: the config
    keys that differ, x's aside), y against x, with the 95% interval as
    error bars, the closed-form theory dashed where the CSV has it (y="ber"),
    a log y axis for BER, and a legend of the differing keys. Returns the axes."""
    import matplotlib.pyplot as plt
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    if by is None:
        by = differing(df, exclude=(x, "simulation.snr_db"))
    by = [by] if isinstance(by, str) else list(by)
    # a single key by its name: pandas' keys stay scalars then, in every version
    groups = df.groupby(by if len(by) > 1 else by[0], sort=False) if by else [((), df)]
    lo_hi = _INTERVALS.get(y)
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values(x)
        label = " ".join(f"{k}={v}" for k, v in zip(by, key)) or y
        yerr = None
        if ci and lo_hi and all(c in g for c in lo_hi):
            yerr = [(g[y] - g[lo_hi[0]]).clip(lower=0), (g[lo_hi[1]] - g[y]).clip(lower=0)]
        shown = g[g[y] > 0] if (logy or (logy is None and y == "ber")) else g
        if yerr is not None:
            keep = g.index.isin(shown.index)
            yerr = [e[keep] for e in yerr]
        line = ax.errorbar(shown[x], shown[y], yerr=yerr, marker="o", ms=4, capsize=2, label=label)
        if theory and y == "ber" and "theory_ber" in g and g["theory_ber"].notna().any():
            t = g[g["theory_ber"].notna()]
            ax.plot(t[x], t["theory_ber"], "--", color=line[0].get_color(), lw=1,
                    label=f"{label} theory ({t['theory'].iloc[0]})" if "theory" in t else f"{label} theory")
    if logy or (logy is None and y == "ber"):
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return ax
