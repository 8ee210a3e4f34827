module github.com/mmds-project/mmds/checker

go 1.26.0
