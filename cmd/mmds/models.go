package main

import (
	"context"

	"github.com/mmds-project/mmds/model"
)

// kindModel is the model mmds train works on: the --config file, which
// must be of the kind named on the command line, or, when there is none,
// the command's default, the paper's model of that kind (Section V).
func kindModel(ctx context.Context, kind model.Kind, path string) (model.Model, error) {
	if path == "" {
		return model.Paper(kind)
	}
	return model.LoadAs(ctx, kind, path)
}
