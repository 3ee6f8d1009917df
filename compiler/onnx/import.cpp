// ONNX importer (in progress)
