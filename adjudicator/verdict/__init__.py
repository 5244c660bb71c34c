"""What goes out, in the order it is built: ``battlefield`` (the clash state the tracker accumulates),
``dimensions`` (per-dimension ratings, votes and results), ``ballots`` (one judge's ballot and the
panel's Verdict model), ``aggregate`` (ballots to a verdict, plain code), ``review`` (whether a person
should look), ``reading`` (the verdict in words), ``labels`` (the words people read, en and zh) and
``report`` (Markdown and HTML)."""
