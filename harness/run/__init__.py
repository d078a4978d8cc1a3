"""Running a certification (docs/architecture.md, A certification run): the settings
and the laboratory's run plan, the run's spec and plan of items, the pytest plugin and
its two sides (the controller, which says hello and collects records, and the
workers, which run the items), and the processes a run starts.

Light on purpose: the plugin module is imported by every pytest session on a machine
where chcert is installed; nothing heavy is imported until it is enabled."""
