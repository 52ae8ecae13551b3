"""Fleet scale: the signatures as alerts in the log engines clusters run, and triage on Spark.

The core never imports this package. Everything here that talks to pySigma or Spark imports
it inside the function that needs it, so `trainwreck` without the `fleet` extra still loads.
"""
