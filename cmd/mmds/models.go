package main

import (
	"context"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
)

// kindModel is the model mmds train works on: the --config file, which
// must be of the kind named on the command line, or, when there is none,
// the command's default, the paper's model of that kind (Section V).
func kindModel(ctx context.Context, kind learn.Model, path string) (model.Model, error) {
	k, err := model.ParseKind(string(kind))
	if err != nil {
		return nil, err
	}
	if path == "" {
		return model.Paper(k)
	}
	return model.LoadAs(ctx, k, path)
}
