"""The runner and the method contract: runs any method, knows no method by name (it is handed the
method)."""
