#!/usr/bin/python3
"""torchvision's ResNet-50 for training-memory figures (docs/memory.md).

Random weights (seed 0), batch normalization on batch statistics
(TrainingMode.TRAINING), exported with do_constant_folding=False and
opset 17 so that every initializer is a parameter to train:

    export_resnet50_train.py BATCH OUT.onnx
"""
import sys, torch, torchvision
B = int(sys.argv[1]); out = sys.argv[2]
torch.manual_seed(0)
m = torchvision.models.resnet50()
m.train()
torch.onnx.export(m, (torch.zeros(B, 3, 224, 224),), out,
                  training=torch.onnx.TrainingMode.TRAINING,
                  do_constant_folding=False, opset_version=17,
                  input_names=["x"], output_names=["out"])
