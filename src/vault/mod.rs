//! All file access goes through the [`Vault`] trait; the core speaks vault-relative paths only.
