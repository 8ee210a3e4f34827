package main

func parseONNX(name string, b []byte) *network {
	notCovered("%s: ONNX", printable(name))
	return nil
}
