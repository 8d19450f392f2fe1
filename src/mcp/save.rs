//! The one way the tools write a note they read: the vault's locked update, refused when the
//! note is no longer the text the change was worked out from (another tool call, another server
//! or the user changed it in between), so no edit is lost and an `ifMatch` check and its write
//! are one step.

use super::server::Scholia;
use crate::vault::{Change, Updated, VaultError, VaultExt as _, VaultPath};

/// Why a save did not happen.
enum Refused {
    Vault(VaultError),
    Changed,
    /// The note was read, and is no longer there.
    Gone,
}

impl From<VaultError> for Refused {
    fn from(err: VaultError) -> Self {
        Self::Vault(err)
    }
}

impl Scholia {
    /// Writes `change` over the note at `path` if it still holds `before` (`None`: there is no
    /// note there yet), as one step under the vault's lock.
    pub(super) fn save(
        &self,
        path: &VaultPath,
        before: Option<&str>,
        change: Change,
    ) -> Result<Updated, String> {
        let saved = self.vault.update(path, |now| match (now, before) {
            (None, Some(_)) => Err(Refused::Gone),
            _ if now == before => Ok(change),
            _ => Err(Refused::Changed),
        });
        saved.map_err(|refused| match refused {
            Refused::Vault(err) => err.to_string(),
            Refused::Gone => format!("{path} was deleted or moved since it was read; nothing was written"),
            Refused::Changed if before.is_none() => {
                format!("{path} was created in the meantime (by another call or program); nothing was changed")
            }
            Refused::Changed => format!(
                "{path} changed since it was read (by another call or program); read it again and retry (nothing \
                 was changed)"
            ),
        })
    }
}
