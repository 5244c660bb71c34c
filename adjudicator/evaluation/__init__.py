"""The statistics of the benchmark: functions of aligned arrays (and, for the reliability report, of
labelled matches); no run folder, no model call.

- :mod:`.inputs`              checks shared by all of them (aligned vectors, gold winners, p in [0, 1])
- :mod:`.metrics`             the CCDB task metrics (paper 2.3)
- :mod:`.baselines`           the structural baselines with their exact expectations (paper 3)
- :mod:`.resampling`          the bootstrap's resamples as index sequences; every metric over all resamples at once
- :mod:`.uncertainty`         bootstrap intervals, paired tests, calibration of p
- :mod:`.reliability`         label reliability of the judges themselves (paper 2.5, Appendix B.1)
- :mod:`.reliability_report`  the reliability report of a set of labelled matches
"""
