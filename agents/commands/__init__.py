"""One module per `tactician` sub-command; each defines `register(app)`."""
