"""Experiments on the reference decoder, run from the command line (``attnbook ablate``):

- `attnbook.experiments.ablation`: the ablation ladder, what positions, norms, tied
  embeddings and the causal mask buy;
- `attnbook.experiments.lengths`: length generalisation, trained on short emails and scored
  on longer ones, with the ladder's model and loop (``attnbook ablate --lengths``).

``python -m attnbook ablate`` is the same command, and ``python -m
attnbook.experiments.ablation`` runs the ladder alone. The length experiment builds on the
ladder, never the other way round: the command line module (`attnbook.cli`) chooses between
them.
"""
